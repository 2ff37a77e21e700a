import { RemovalPolicy } from 'aws-cdk-lib'
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb'
import { Construct } from 'constructs'
import { STREAMS } from '../functions/consumers'
import {
  deployedIndexes,
  type IndexSchema,
  type AttributeType as KeyType,
  TABLES,
  type TableKey,
} from '../functions/table-schema'

const attribute = (key: { name: string; type: KeyType }) => ({
  name: key.name,
  type: key.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
})

const projection = (index: IndexSchema) => {
  switch (index.projection.type) {
    case 'ALL':
      return { projectionType: ProjectionType.ALL }
    case 'KEYS_ONLY':
      return { projectionType: ProjectionType.KEYS_ONLY }
    case 'INCLUDE':
      return {
        projectionType: ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.projection.nonKeyAttributes],
      }
  }
}

/**
 * The tables whose items expire by themselves, and the attribute (epoch seconds) DynamoDB's TTL
 * reads: API keys' rate buckets, link tokens and rate-limit counters in the grants table, handled timers, and TEST inbox
 * messages after 30 days. An item without the attribute (every grant) never expires. DynamoDB
 * deletes expired items within days, not at the second: every reader checks the time itself.
 */
export const TIME_TO_LIVE: Partial<Record<TableKey, string>> = {
  // An idle key's rate bucket (`rate#<keyId>`, stores/rate-leases.dynamodb.ts), a day on; keys
  // themselves have no `purgeAt`.
  apiKeys: 'purgeAt',
  grants: 'purgeAt',
  timers: 'purgeAt',
  inbox: 'purgeAt',
  webhooks: 'purgeAt',
  figures: 'purgeAt',
  requests: 'purgeAt',
}

const STREAM_VIEW = { NEW_AND_OLD_IMAGES: StreamViewType.NEW_AND_OLD_IMAGES } as const

/**
 * CDK context (`-c keepLegacyIndexes=true`) for a stage an earlier release deployed: it keeps the
 * indexes this release replaced (`legacyIndexes` of table-schema.ts) beside their replacements.
 */
export const KEEP_LEGACY_INDEXES = 'keepLegacyIndexes'
/**
 * The earlier release's flag, still read so its documented second deploy (and a cdk.json that
 * sets it) works: `true` is now the default, `false` means `keepLegacyIndexes=true`.
 */
export const DROP_LEGACY_INDEXES = 'dropLegacyIndexes'

export type GrantTablesProps = {
  /** Ephemeral stages (dev, CI) may be destroyed with their data; every other stage keeps it. */
  ephemeral: boolean
  /**
   * Also deploy the indexes in `legacyIndexes` of table-schema.ts. Default: the context
   * (`keepLegacyIndexes`, `true` or `false`, default `false`).
   */
  keepLegacyIndexes?: boolean
}

/**
 * The service's tables, built from the same key schemas the local table creator uses. No physical
 * names: CloudFormation generates them and the stack hands them to the functions, so two stages
 * live side by side in one account.
 *
 * A plain deploy builds exactly the indexes the code reads (`deployedIndexes`), so a new stage is
 * the final design. CloudFormation creates or deletes at most one global secondary index per table
 * per stack update, so a stage an earlier release deployed moves in two deploys: the first, with
 * `-c keepLegacyIndexes=true`, adds the new index while the legacy one stays; the second, without
 * it, deletes the legacy one. Whether a stage has them cannot be read at synth (that would need
 * AWS credentials), hence the flag.
 */
export class GrantTables extends Construct {
  /** Every table of table-schema.ts, by its key: a new table there is a new table here. */
  readonly byKey: Record<TableKey, Table>
  /**
   * Whether the tables keep the indexes of `legacyIndexes` (`-c keepLegacyIndexes=true`): then
   * grant listings read `byProgram`, which holds every grant, while `byProgramSlot` lacks those
   * written before it until `grant backfill-slots` has run.
   */
  readonly legacyIndexesDeployed: boolean
  /** The global secondary indexes each table has on this stage, by name (its alarms name them). */
  readonly indexNames: Record<TableKey, readonly string[]>

  constructor(scope: Construct, id: string, props: GrantTablesProps) {
    super(scope, id)
    const keepLegacy = props.keepLegacyIndexes ?? legacyIndexesKept(this)
    this.legacyIndexesDeployed = keepLegacy
    this.indexNames = Object.fromEntries(
      (Object.keys(TABLES) as TableKey[]).map((key) => [
        key,
        deployedIndexes(key, { keepLegacy }).map((index) => index.indexName),
      ]),
    ) as Record<TableKey, string[]>
    const make = (key: TableKey) => {
      // Construct id from the key (apiKeys -> ApiKeys): logical ids stay as they were.
      const constructId = `${key[0]?.toUpperCase()}${key.slice(1)}`
      const schema = TABLES[key]
      const stream = STREAMS[key]
      const ttl = TIME_TO_LIVE[key]
      const table = new Table(this, constructId, {
        // The grants table's stream feeds its one reader (functions/consumers.ts).
        ...(stream ? { stream: STREAM_VIEW[stream] } : {}),
        ...(ttl ? { timeToLiveAttribute: ttl } : {}),
        partitionKey: attribute(schema.partitionKey),
        ...('sortKey' in schema ? { sortKey: attribute(schema.sortKey) } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        deletionProtection: !props.ephemeral,
        removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      })
      for (const index of deployedIndexes(key, { keepLegacy })) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          ...(index.sortKey ? { sortKey: attribute(index.sortKey) } : {}),
          ...projection(index),
        })
      }
      return table
    }
    this.byKey = Object.fromEntries(
      (Object.keys(TABLES) as TableKey[]).map((key) => [key, make(key)]),
    ) as Record<TableKey, Table>
  }
}

const flag = (scope: Construct, name: string): boolean | undefined => {
  const raw = scope.node.tryGetContext(name)
  if (raw === undefined || raw === null || raw === '') return undefined
  const value = String(raw)
  if (value !== 'true' && value !== 'false') {
    throw new Error(`Context ${name} must be true or false, got ${JSON.stringify(value)}`)
  }
  return value === 'true'
}

/** `-c keepLegacyIndexes=true`, or the earlier release's `-c dropLegacyIndexes=false`. */
const legacyIndexesKept = (scope: Construct): boolean => {
  const keep = flag(scope, KEEP_LEGACY_INDEXES)
  const drop = flag(scope, DROP_LEGACY_INDEXES)
  if (keep !== undefined && drop !== undefined && keep === drop) {
    throw new Error(
      `Context ${KEEP_LEGACY_INDEXES}=${keep} and ${DROP_LEGACY_INDEXES}=${drop} contradict each other: pass ${KEEP_LEGACY_INDEXES} only`,
    )
  }
  return keep ?? (drop === undefined ? false : !drop)
}
