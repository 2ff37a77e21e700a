import { RemovalPolicy } from 'aws-cdk-lib'
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb'
import { Construct } from 'constructs'
import {
  type IndexSchema,
  type AttributeType as KeyType,
  TABLES,
  type TableKey,
} from '../functions/shared/table-schema'

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

/** CDK context (`-c dropLegacyIndexes=true`) that removes the indexes this release replaced. */
export const DROP_LEGACY_INDEXES = 'dropLegacyIndexes'

export type GrantTablesProps = {
  /** Ephemeral stages (dev, CI) may be destroyed with their data; every other stage keeps it. */
  ephemeral: boolean
  /**
   * Leave out the indexes in `legacyIndexes` of table-schema.ts. Default: the context value
   * `dropLegacyIndexes` (`true` or `false`, default `false`).
   */
  dropLegacyIndexes?: boolean
}

/**
 * The service's tables, built from the same key schemas the local table creator uses. No physical
 * names: CloudFormation generates them and the stack hands them to the functions, so two stages
 * live side by side in one account.
 *
 * CloudFormation creates or deletes at most one global secondary index per table per stack
 * update, so replacing an index takes two deploys: the first adds the new index while the legacy
 * one stays (the default), the second, with `-c dropLegacyIndexes=true`, deletes the legacy one.
 */
export class GrantTables extends Construct {
  /** Every table of table-schema.ts, by its key: a new table there is a new table here. */
  readonly byKey: Record<TableKey, Table>
  /**
   * Whether the tables still have the indexes of `legacyIndexes` (no `-c dropLegacyIndexes=true`):
   * until then grant listings read `byProgram`, which holds every grant, while `byProgramSlot`
   * lacks those written before it until `grant backfill-slots` has run.
   */
  readonly legacyIndexesDeployed: boolean

  constructor(scope: Construct, id: string, props: GrantTablesProps) {
    super(scope, id)
    const dropLegacy = props.dropLegacyIndexes ?? legacyIndexesDropped(this)
    this.legacyIndexesDeployed = !dropLegacy
    const make = (key: TableKey) => {
      // Construct id from the key (apiKeys -> ApiKeys): logical ids stay as they were.
      const constructId = `${key[0]?.toUpperCase()}${key.slice(1)}`
      const schema = TABLES[key]
      const table = new Table(this, constructId, {
        partitionKey: attribute(schema.partitionKey),
        ...('sortKey' in schema ? { sortKey: attribute(schema.sortKey) } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        deletionProtection: !props.ephemeral,
        removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      })
      const indexes: readonly IndexSchema[] = [
        ...schema.globalSecondaryIndexes,
        ...(dropLegacy ? [] : schema.legacyIndexes),
      ]
      for (const index of indexes) {
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

const legacyIndexesDropped = (scope: Construct): boolean => {
  const raw = scope.node.tryGetContext(DROP_LEGACY_INDEXES)
  const value = raw === undefined || raw === null || raw === '' ? 'false' : String(raw)
  if (value !== 'true' && value !== 'false') {
    throw new Error(
      `Context ${DROP_LEGACY_INDEXES} must be true or false, got ${JSON.stringify(value)}`,
    )
  }
  return value === 'true'
}
