import { DescribeTableCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb'
import { BatchWriteCommand, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb'
import { cliMessage } from '../../cli/messages'
import { makeAdmin } from '../../functions/core/admin'
import { InvalidInput } from '../../functions/domain/admin-errors'
import {
  decodeGrantCursor,
  encodeGrantCursor,
  type GrantRecord,
} from '../../functions/domain/grant'
import { allGrantListSlots, grantListSlot } from '../../functions/domain/grant-slots'
import { newId } from '../../functions/domain/ids'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import type { AdminTableNames } from '../../functions/stores/admin.store'
import {
  GrantLister,
  listGrantPage,
  type SendQuery,
} from '../../functions/stores/grant-listing.dynamodb'
import { DynamoDbGrantReads } from '../../functions/stores/grants.reads.dynamodb'
import { type GrantListIndex, INDEX, tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { type Issuer, newIssuer, request, startApi } from '../support/api'
import { config, documentClient, dynamodb } from '../support/runtime'

/**
 * A program's grants spread over the slots of `byProgramSlot` (functions/domain/grant-slots.ts), on
 * DynamoDB Local: every listing (the grant API's, the management store's, the admin CLI's) pages
 * through every slot exactly, ties in one millisecond included; the slot is never shown; and the
 * upgrade: grants written before the index get their slot from `grant backfill-slots`, listings
 * read `byProgram` until then, and fall back to `byProgramSlot` once `byProgram` is gone.
 * test/unit/grant-listing.test.ts runs the merge against an index that orders ties its own way.
 */

const EMAILS = ['ann@example.com', 'bob@example.com', 'cat@example.com']

/** A grant item as the grant path writes it, with `programSlot` unless `slotted` is false. */
const grantItem = (
  issuer: Issuer,
  createdAt: string,
  n: number,
  { slotted = true }: { slotted?: boolean } = {},
): GrantRecord => {
  const grantId = newId('grant')
  const programId = issuer.programs.TEST
  return {
    grantId,
    programId,
    issuerId: issuer.issuerId,
    mode: 'TEST',
    recipient: { email: EMAILS[n % EMAILS.length] as string, name: `Person ${n}` },
    reason: `Grant ${n}`,
    amount: 1 + (n % 5),
    status: 'reserved',
    createdAt,
    requestHash: 'a'.repeat(64),
    keyId: issuer.keyRecords.TEST.keyId,
    ...(slotted ? { programSlot: grantListSlot(programId, grantId) } : {}),
  }
}

const writeAll = async (table: string, items: object[]) => {
  for (let i = 0; i < items.length; i += 25) {
    await documentClient.send(
      new BatchWriteCommand({
        RequestItems: {
          [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    )
  }
}

/**
 * 150 grants of one program: 50 in one millisecond, 30 in the one before, the rest one a
 * millisecond, so every slot holds ties and pages end inside them.
 */
const programGrants = (issuer: Issuer, options: { slotted?: boolean } = {}) => {
  const base = Date.UTC(2031, 4, 6, 7, 8, 9, 100)
  const at = (ms: number) => new Date(base + ms).toISOString()
  return Array.from({ length: 150 }, (_, n) =>
    grantItem(issuer, n < 50 ? at(1_000) : n < 80 ? at(999) : at(n), n, options),
  )
}

const newestFirst = (grants: GrantRecord[]) =>
  [...grants]
    .sort(
      (a, b) =>
        (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
        (a.grantId < b.grantId ? 1 : a.grantId > b.grantId ? -1 : 0),
    )
    .map((g) => g.grantId)

type Lister = (cursor: string | undefined) => Promise<{ items: GrantRecord[]; nextCursor?: string }>

/**
 * Every page, following cursors; no page is longer than `limit`, and none is shorter but the last
 * unless `short` (a filter, or few reads a page, may end one early).
 */
const pageThrough = async (list: Lister, limit: number, { short = false } = {}) => {
  const pages: string[][] = []
  let cursor: string | undefined
  do {
    const page = await list(cursor)
    expect(page.items.length).toBeLessThanOrEqual(limit)
    if (!short && page.nextCursor !== undefined) expect(page.items.length).toBe(limit)
    pages.push(page.items.map((g) => g.grantId))
    cursor = page.nextCursor
    expect(pages.length).toBeLessThan(1_000)
  } while (cursor !== undefined)
  return pages
}

const readsOn = (
  tables: { apiKeys: string; programs: string; grants: string },
  index?: GrantListIndex,
) => new DynamoDbGrantReads(documentClient, tables, index)

const storeList =
  (store: DynamoDbGrantReads, programId: string, limit: number, extra: object = {}): Lister =>
  (cursor) =>
    store.listGrants({
      programId,
      limit,
      ...(cursor === undefined ? {} : { after: decodeGrantCursor(cursor) }),
      ...extra,
    })

describe('listing a program spread over the slots of byProgramSlot', () => {
  let issuer: Issuer
  let grants: GrantRecord[]
  let expected: string[]
  beforeAll(async () => {
    issuer = await newIssuer()
    grants = programGrants(issuer)
    expected = newestFirst(grants)
    await writeAll(config.tables.grants, grants)
  })

  it('puts the grants of one program in every slot', async () => {
    const counts = await Promise.all(
      allGrantListSlots(issuer.programs.TEST).map(async (slot) => {
        const { Count } = await documentClient.send(
          new QueryCommand({
            TableName: config.tables.grants,
            IndexName: INDEX.grantsByProgramSlot,
            KeyConditionExpression: 'programSlot = :s',
            ExpressionAttributeValues: { ':s': slot },
            Select: 'COUNT',
          }),
        )
        return Count ?? 0
      }),
    )
    expect(counts.reduce((a, b) => a + b, 0)).toBe(150)
    expect(counts.every((count) => count > 0)).toBe(true)
  })

  it.each([7, 25, 49, 100])(
    'pages newest first, every grant once, with limit %i (ties across slots and pages)',
    async (limit) => {
      const pages = await pageThrough(
        storeList(readsOn(config.tables), issuer.programs.TEST, limit),
        limit,
      )
      expect(pages.flat()).toEqual(expected)
    },
  )

  it('filters by recipient across the slots, every match once', async () => {
    for (const email of EMAILS) {
      const pages = await pageThrough(
        storeList(readsOn(config.tables), issuer.programs.TEST, 6, { recipientEmail: email }),
        6,
        { short: true },
      )
      expect(pages.flat()).toEqual(
        expected.filter((id) => grants.find((g) => g.grantId === id)?.recipient.email === email),
      )
    }
  })

  it('stays exact with pages of 2 grants and one round of reading a page', async () => {
    // DynamoDB's 1 MB pages, shrunk to 2 grants: pages end inside every tie, and out of reads.
    const tiny: SendQuery = (input) =>
      documentClient.send(new QueryCommand({ ...input, Limit: Math.min(input.Limit ?? 2, 2) }))
    let short = 0
    for (const recipientEmail of [undefined, 'bob@example.com']) {
      const pages = await pageThrough(
        async (cursor) => {
          const page = await listGrantPage(tiny, {
            table: config.tables.grants,
            index: INDEX.grantsByProgramSlot,
            programId: issuer.programs.TEST,
            recipientEmail,
            limit: 10,
            after: cursor === undefined ? undefined : decodeGrantCursor(cursor),
            maxReads: 1,
          })
          if (page.nextCursor !== undefined && page.items.length < 10) short++
          return page
        },
        10,
        { short: true },
      )
      expect(pages.flat()).toEqual(
        expected.filter(
          (id) =>
            recipientEmail === undefined ||
            grants.find((g) => g.grantId === id)?.recipient.email === recipientEmail,
        ),
      )
    }
    expect(short).toBeGreaterThan(0)
  })

  it('pages the admin CLI listing the same way, with the same cursors', async () => {
    const admin = makeAdmin(
      new DynamoDbAdminStore(documentClient, config.tables as AdminTableNames),
    )
    const pages = await pageThrough(
      (cursor) =>
        admin.listGrants({
          program: issuer.programs.TEST,
          limit: '13',
          ...(cursor === undefined ? {} : { cursor }),
        }),
      13,
    )
    expect(pages.flat()).toEqual(expected)
    // A cursor that did not come from a page is refused before any read, in the CLI's words.
    const refused = await admin
      .listGrants({ program: issuer.programs.TEST, limit: '5', cursor: 'e30' })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(InvalidInput)
    expect(cliMessage(refused)).toBe('The --cursor value is not one this command printed.')
  })

  it('answers GET /programs/{programId}/grants from the slots, without ever showing one', async () => {
    const api = await startApi()
    try {
      const pages: string[][] = []
      let cursor: string | null = null
      do {
        const call = await request(
          api.baseUrl,
          'GET',
          `/programs/${issuer.programs.TEST}/grants?limit=40${cursor === null ? '' : `&cursor=${cursor}`}`,
          { headers: { 'x-api-key': issuer.keys.TEST } },
        )
        expect(call.status).toBe(200)
        expect(call.text).not.toContain('programSlot')
        expect(call.text).not.toContain(`${issuer.programs.TEST}#`)
        const data = call.body.data as { id: string }[]
        pages.push(data.map((g) => g.id))
        cursor = call.body.nextCursor as string | null
      } while (cursor !== null)
      expect(pages.flat()).toEqual(expected)
    } finally {
      await api.close()
    }
  })
})

describe('upgrading a stage: grants from before byProgramSlot', () => {
  // A grants table in the upgrade window: byProgramSlot added beside byProgram (deploy 1).
  const tables: AdminTableNames = tableNames('vs', `-slots-${process.pid}`)
  let issuer: Issuer
  let old: GrantRecord[]
  let batchItem: Record<string, unknown>
  beforeAll(async () => {
    await ensureTables(dynamodb, tables)
    await dynamodb.send(
      new UpdateTableCommand({
        TableName: tables.grants,
        AttributeDefinitions: [
          { AttributeName: 'programId', AttributeType: 'S' },
          { AttributeName: 'createdAt', AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: INDEX.grantsByProgram,
              KeySchema: [
                { AttributeName: 'programId', KeyType: 'HASH' },
                { AttributeName: 'createdAt', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          },
        ],
      }),
    )
    for (;;) {
      const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tables.grants }))
      const legacy = Table?.GlobalSecondaryIndexes?.find(
        (i) => i.IndexName === INDEX.grantsByProgram,
      )
      if (legacy?.IndexStatus === 'ACTIVE') break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    issuer = await newIssuer()
    // 150 grants as the previous release wrote them (no slot), and one the new path wrote.
    old = programGrants(issuer, { slotted: false })
    // A batch of send-to-many, under a key no grant has: no programId, so in neither index.
    batchItem = { grantId: `batch#${newId('grant')}`, program: issuer.programs.TEST, total: 3 }
    await writeAll(tables.grants, [...old, batchItem])
  })

  const everything = async () =>
    (
      (
        await documentClient.send(
          new ScanCommand({ TableName: tables.grants, ConsistentRead: true }),
        )
      ).Items ?? []
    ).sort((a, b) => String(a.grantId).localeCompare(String(b.grantId)))

  it('lists them from byProgram until the backfill, gives each its slot once, then lists them from byProgramSlot', async () => {
    const fresh = grantItem(issuer, new Date(Date.UTC(2032, 0, 1)).toISOString(), 999)
    await documentClient.send(new PutCommand({ TableName: tables.grants, Item: fresh }))
    const all = newestFirst([...old, fresh])

    // Deploy 1: the listings read byProgram, which holds every grant; byProgramSlot only the new.
    const legacy = readsOn(tables, INDEX.grantsByProgram)
    expect((await pageThrough(storeList(legacy, issuer.programs.TEST, 25), 25)).flat()).toEqual(all)
    const slots = readsOn(tables, INDEX.grantsByProgramSlot)
    expect((await pageThrough(storeList(slots, issuer.programs.TEST, 25), 25)).flat()).toEqual([
      fresh.grantId,
    ])

    // `grant backfill-slots`.
    const store = new DynamoDbAdminStore(documentClient, tables)
    expect(await store.backfillGrantSlots()).toEqual({ scanned: 152, updated: 150, alreadySet: 0 })
    const after = await everything()
    for (const item of after) {
      if (item.grantId === batchItem.grantId) expect(item).toEqual(batchItem)
      else expect(item.programSlot).toBe(grantListSlot(item.programId, item.grantId))
    }
    // Nothing else of a grant changed.
    const byId = new Map(after.map((item) => [item.grantId, item]))
    for (const grant of old) {
      expect(byId.get(grant.grantId)).toEqual({
        ...grant,
        programSlot: grantListSlot(grant.programId, grant.grantId),
      })
    }

    // Both indexes now list the same pages, cursor for cursor.
    for (const limit of [7, 50]) {
      const fromSlots = await pageThrough(storeList(slots, issuer.programs.TEST, limit), limit)
      expect(fromSlots).toEqual(
        await pageThrough(storeList(legacy, issuer.programs.TEST, limit), limit),
      )
      expect(fromSlots.flat()).toEqual(all)
    }

    // Idempotent: a second run writes nothing.
    expect(await store.backfillGrantSlots()).toEqual({ scanned: 152, updated: 0, alreadySet: 0 })
    expect(await everything()).toEqual(after)
  })

  it('reads byProgramSlot once byProgram is gone (the second deploy deletes it first)', async () => {
    // The run's own tables never had byProgram: a function still told to read it.
    const issuerB = await newIssuer()
    const grantsB = programGrants(issuerB).slice(0, 30)
    await writeAll(config.tables.grants, grantsB)
    const stale = readsOn(config.tables, INDEX.grantsByProgram)
    expect((await pageThrough(storeList(stale, issuerB.programs.TEST, 8), 8)).flat()).toEqual(
      newestFirst(grantsB),
    )
    const lister = new GrantLister(config.tables.grants, INDEX.grantsByProgram)
    const indexes: string[] = []
    const page = await lister.list(
      (input) => {
        indexes.push(String(input.IndexName))
        return documentClient.send(new QueryCommand(input))
      },
      { programId: issuerB.programs.TEST, limit: 5, maxReads: 8 },
    )
    expect(page.items.map((g) => g.grantId)).toEqual(newestFirst(grantsB).slice(0, 5))
    expect(page.nextCursor).toBe(
      encodeGrantCursor({
        createdAt: (page.items[4] as GrantRecord).createdAt,
        grantId: (page.items[4] as GrantRecord).grantId,
      }),
    )
    // One refused Query on byProgram, then the slots; and the next page goes straight there.
    expect(indexes[0]).toBe(INDEX.grantsByProgram)
    expect(indexes.slice(1).every((i) => i === INDEX.grantsByProgramSlot)).toBe(true)
    indexes.splice(0)
    await lister.list(
      (input) => {
        indexes.push(String(input.IndexName))
        return documentClient.send(new QueryCommand(input))
      },
      { programId: issuerB.programs.TEST, limit: 5, maxReads: 8 },
    )
    expect(new Set(indexes)).toEqual(new Set([INDEX.grantsByProgramSlot]))
  })
})
