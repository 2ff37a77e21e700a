/**
 * Key schemas and index projections of the tables, the single source for the CDK stack and for
 * the local table creator, so the tables in AWS and on a laptop cannot drift. Pure data: no SDK
 * imports.
 */
export type AttributeType = 'S' | 'N'
/**
 * What an index copies from the base item. Every write that changes a projected attribute (or a
 * key attribute of the index) is also a write to the index, paid in write units.
 */
export type Projection =
  | { type: 'ALL' }
  | { type: 'KEYS_ONLY' }
  | { type: 'INCLUDE'; nonKeyAttributes: readonly string[] }
export type IndexSchema = {
  indexName: string
  partitionKey: { name: string; type: AttributeType }
  sortKey?: { name: string; type: AttributeType }
  projection: Projection
}
export type TableSchema = {
  partitionKey: { name: string; type: AttributeType }
  sortKey?: { name: string; type: AttributeType }
  globalSecondaryIndexes: readonly IndexSchema[]
  /**
   * Indexes an earlier release deployed and this one no longer reads. CloudFormation can create
   * or delete only one global secondary index per table per update, so a stage that has one keeps
   * it beside its replacement while it is deployed with `-c keepLegacyIndexes=true`, until a deploy
   * without the flag drops it (see lib/grant-tables.ts). New stages and local tables never get them.
   */
  legacyIndexes: readonly IndexSchema[]
}

export const INDEX = {
  /** Fallback only, for keys created before key-id pointers existed (see KEY_ID_POINTER). */
  keysById: 'byKeyId',
  keysByIssuer: 'byIssuer',
  /** Replaces `byIssuer` (ALL), which every grant wrote because it held `issued`/`remaining`. */
  programsByIssuer: 'byIssuerV2',
  /**
   * Legacy (in `legacyIndexes`): a program's grants under one partition key, which caps a program
   * at one index partition's 1,000 writes a second. Listings read it only while a stage keeps it
   * (`-c keepLegacyIndexes=true`, GRANTS_LIST_INDEX), because grants written before
   * `byProgramSlot` are not in that one until `grant backfill-slots` has run.
   */
  grantsByProgram: 'byProgram',
  /** A program's grants spread over slots (functions/domain/grant-slots.ts). */
  grantsByProgramSlot: 'byProgramSlot',
  /** A person's memberships across issuers (`GET /manage/me`). */
  membershipsBySub: 'bySub',
  /**
   * A recipient's grants across programs and issuers, by normalised e-mail (`recipientKey`): their
   * page, their balance, a new link. One address takes far fewer than a partition's 1,000 writes a
   * second, unless one address is the target of a load test (docs/decisions/returning-shares.md).
   */
  grantsByRecipient: 'byRecipient',
  /**
   * A program's holders by accepted shares (figures table): `holderSlot` is `<programId>#<n>`
   * (n = a hash of the recipient's address mod HOLDER_SLOTS), so one program's holder updates go
   * to HOLDER_SLOTS index partitions, and its first page is one Query per slot, merged.
   */
  holdersByAccepted: 'byAccepted',
} as const

/**
 * Besides the keys, the API keys table holds one pointer item per key, written in the same
 * transaction as the key: `{ keyHash: "keyId#<keyId>", pointsTo: "<keyHash of the key>" }`, so
 * the admin side finds a key by its id with a strongly consistent GetItem instead of the
 * eventually consistent `byKeyId` index. A real `keyHash` is 64 lower-case hex characters (the
 * SHA-256 of the secret), so it can never start with `keyId#`: the grant path, which looks keys up
 * by that hash only, can never read a pointer. A pointer has no `keyId`, `issuerId`, `createdAt`
 * or `status`, so it is in neither index of the table, and a condition on `status` fails on it.
 */
export const KEY_ID_POINTER = { prefix: 'keyId#', target: 'pointsTo' } as const

/**
 * Marked pure so that a bundle that reads only INDEX or the table keys' names drops the schemas:
 * esbuild keeps an unused object literal that reads INDEX's properties (a read may have effects),
 * and the arguments of a call it drops, hence the function.
 */
const schemas = <T>(define: () => T): T => define()

type StringKey = { name: string; type: 'S' }
type KeysOnly = { partitionKey: StringKey; globalSecondaryIndexes: []; legacyIndexes: [] }

/** A table read and written by its keys alone (strings): no global secondary index. */
function keysOnly(partition: string): KeysOnly
function keysOnly(partition: string, sort: string): KeysOnly & { sortKey: StringKey }
function keysOnly(partition: string, sort?: string): TableSchema {
  return {
    partitionKey: { name: partition, type: 'S' },
    ...(sort === undefined ? {} : { sortKey: { name: sort, type: 'S' } }),
    globalSecondaryIndexes: [],
    legacyIndexes: [],
  }
}

/** An index of the items under `partition`, in the order they were made (`createdAt`). */
const madeOrder = (
  indexName: string,
  partition: string,
  projection: Projection = { type: 'ALL' },
): IndexSchema => ({
  indexName,
  partitionKey: { name: partition, type: 'S' },
  sortKey: { name: 'createdAt', type: 'S' },
  projection,
})

export const TABLES = /* @__PURE__ */ schemas(
  () =>
    ({
      /** Issuers: read and written only by the admin CLI; the functions never touch it. */
      issuers: keysOnly('issuerId'),
      apiKeys: {
        partitionKey: { name: 'keyHash', type: 'S' },
        // A grant only condition-checks a key item and never writes it, so these indexes are written
        // only when a key is created, revoked or rolled: ALL costs nothing on the hot path. The
        // table also holds each key's rate bucket (`keyHash = rate#<keyId>`, `tat`, `purgeAt`:
        // stores/rate-leases.dynamodb.ts), written a few times a second by busy keys: it has no
        // keyId, issuerId or createdAt, so it is in neither index, and the grant path, which
        // reads keys by their 64-hex hash only, never reads it.
        globalSecondaryIndexes: [
          {
            indexName: INDEX.keysById,
            partitionKey: { name: 'keyId', type: 'S' },
            projection: { type: 'ALL' },
          },
          madeOrder(INDEX.keysByIssuer, 'issuerId'),
        ],
        legacyIndexes: [],
      },
      programs: {
        partitionKey: { name: 'programId', type: 'S' },
        globalSecondaryIndexes: [
          // Only what never changes after creation: a grant (which moves `issued` and `remaining`)
          // or a pause never writes this index. Listings read the rest from the base table.
          madeOrder(INDEX.programsByIssuer, 'issuerId', {
            type: 'INCLUDE',
            nonKeyAttributes: ['mode'],
          }),
        ],
        legacyIndexes: [madeOrder('byIssuer', 'issuerId')],
      },
      grants: {
        partitionKey: { name: 'grantId', type: 'S' },
        // Written by every grant (a new item), whatever the projection; `grant list` reads it all.
        // `programSlot` is `<programId>#<n>` (grant-slots.ts), so one program's grants go to
        // GRANT_LIST_SLOTS partitions of the index, not one. Batch items (`batch#...`) have neither
        // `programId` nor `programSlot`, so they are in neither index.
        globalSecondaryIndexes: [
          madeOrder(INDEX.grantsByProgramSlot, 'programSlot'),
          // Only what picks a recipient's grants (program, issuer, mode, state): the page and the
          // balance re-read the grants themselves, strongly consistent, before deciding on them.
          madeOrder(INDEX.grantsByRecipient, 'recipientKey', {
            type: 'INCLUDE',
            nonKeyAttributes: ['programId', 'issuerId', 'mode', 'status', 'amount'],
          }),
        ],
        legacyIndexes: [madeOrder(INDEX.grantsByProgram, 'programId')],
      },
      /**
       * Who belongs to an issuer, and with which role: one item per (issuer, person). The person is
       * their Cognito `sub`, which exists from the invitation on (AdminCreateUser returns it). Read
       * with a strongly consistent GetItem on every management request, so a removal or a new role
       * takes effect on the very next call.
       */
      memberships: {
        partitionKey: { name: 'issuerId', type: 'S' },
        sortKey: { name: 'sub', type: 'S' },
        globalSecondaryIndexes: [
          {
            indexName: INDEX.membershipsBySub,
            partitionKey: { name: 'sub', type: 'S' },
            sortKey: { name: 'issuerId', type: 'S' },
            projection: { type: 'INCLUDE', nonKeyAttributes: ['role', 'email'] },
          },
        ],
        legacyIndexes: [],
      },
      /**
       * The audit log, append-only: one item per change, written in the same transaction as the
       * change. `entryId` sorts by time (ISO time, then a random suffix), so newest first is a
       * Query with ScanIndexForward false.
       */
      audit: keysOnly('issuerId', 'entryId'),
      /**
       * When an open offer next needs the service: its reminder, then its expiry. Written by the
       * grants stream's reader when a grant is made (not by the grant path), spread over TIMER_SLOTS
       * partitions by a hash of the grant id; read and deleted by the sweep every minute
       * (docs/decisions/offer-expiry.md). `due` is `<ISO time>#<grantId>#<kind>`.
       */
      timers: keysOnly('slot', 'due'),
      /**
       * An issuer's TEST inbox: the offer e-mail of TEST grants, as rendered, never handed to SES.
       * `messageId` sorts by time. Kept 30 days (`purgeAt`, the table's TTL).
       */
      inbox: keysOnly('issuerId', 'messageId'),
      /**
       * Webhooks (functions/domain/webhooks.ts, docs/webhooks.md): an issuer's endpoints
       * (`pk = endpoints#<issuerId>`, `sk = <endpointId>`), each endpoint's messages with their attempts
       * (`pk = messages#<endpointId>`, `sk = <messageId>`, which sorts by the event's time; kept 30
       * days, `purgeAt`), a program's pool-low mark (`pk = pool-low#<programId>`, `sk = mark`), and
       * an issuer's endpoint count per mode (`pk = endpoint-count#<issuerId>`, `sk = <mode>`).
       * Never on the grant path.
       */
      webhooks: keysOnly('pk', 'sk'),
      /**
       * What a program's grants add up to, kept by the grants stream's reader (issue 32), so a
       * program's holders and its daily figures are read in proportion to what is shown, never by
       * a scan of its grants: a holder per (program, address) (`pk = holder#<programId>#<n>`, n
       * its holder slot, `sk = <recipientKey>`), daily counters (`pk = daily#<programId>`, `sk = <YYYY-MM-DD>#<n>`,
       * a few counter items a day so concurrent stream batches rarely write the same one), what
       * has been counted of each grant (`pk = applied#<grantId>`: a record read twice counts once),
       * and a program's value history (`pk = values#<programId>`). Never on the grant path.
       */
      figures: {
        partitionKey: { name: 'pk', type: 'S' },
        sortKey: { name: 'sk', type: 'S' },
        globalSecondaryIndexes: [
          {
            indexName: INDEX.holdersByAccepted,
            partitionKey: { name: 'holderSlot', type: 'S' },
            sortKey: { name: 'accepted', type: 'N' },
            projection: { type: 'ALL' },
          },
        ],
        legacyIndexes: [],
      },
      /**
       * The request log (issue 33): one item per integrator API request, written off the request
       * path by the RequestLog writer from the functions' log lines (functions/domain/request-log.ts),
       * kept REQUEST_LOG_DAYS (`purgeAt`). `pk = requests#<issuerId>#<mode>#<n>` (n = the request
       * id's slot, so one issuer's requests go to REQUEST_LOG_SLOTS partitions per mode), `sk = <requestId>`,
       * which sorts by time: newest first is a Query per slot, merged. Never on the grant path.
       */
      requests: keysOnly('pk', 'sk'),
    }) as const satisfies Record<string, TableSchema>,
)

export type TableKey = keyof typeof TABLES

/**
 * The global secondary indexes a table is deployed with: its current ones, and its legacy ones too
 * on a stage deployed with `-c keepLegacyIndexes=true`. The one list the stack
 * (lib/grant-tables.ts), the local tables and the contention model (bench/contention) read, so an
 * index added to TABLES is built, created locally and modelled alike.
 */
export const deployedIndexes = (
  key: TableKey,
  { keepLegacy = false }: { keepLegacy?: boolean } = {},
): readonly IndexSchema[] => {
  const schema: TableSchema = TABLES[key]
  return [...schema.globalSecondaryIndexes, ...(keepLegacy ? schema.legacyIndexes : [])]
}

/**
 * The index a grant listing reads: `byProgramSlot`, or `byProgram` while a stage keeps it (the
 * stack says which in GRANTS_LIST_INDEX and in the GRANT_LIST_INDEX_OUTPUT output).
 */
export type GrantListIndex = typeof INDEX.grantsByProgram | typeof INDEX.grantsByProgramSlot
export const GRANT_LIST_INDEXES: readonly GrantListIndex[] = [
  INDEX.grantsByProgramSlot,
  INDEX.grantsByProgram,
]

/** The stack output that names the index grant listings read: the admin CLI reads it. */
export const GRANT_LIST_INDEX_OUTPUT = 'GrantsListIndex'

/** A physical name for every table: `<prefix>-<table>` (apiKeys -> api-keys), then the suffix. */
export const tableNames = (prefix: string, suffix = ''): Record<TableKey, string> =>
  Object.fromEntries(
    (Object.keys(TABLES) as TableKey[]).map((key) => [
      key,
      `${prefix}-${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${suffix}`,
    ]),
  ) as Record<TableKey, string>

/** The stack output that names each table (IssuersTable, ApiKeysTable, ...): the CLI reads them. */
export const tableOutputKey = (key: TableKey) => `${key[0]?.toUpperCase()}${key.slice(1)}Table`
