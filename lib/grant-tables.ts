import { RemovalPolicy } from 'aws-cdk-lib'
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb'
import { Construct } from 'constructs'
import {
  type AttributeType as KeyType,
  TABLES,
  type TableKey,
} from '../functions/shared/table-schema'

const attribute = (key: { name: string; type: KeyType }) => ({
  name: key.name,
  type: key.type === 'N' ? AttributeType.NUMBER : AttributeType.STRING,
})

export type GrantTablesProps = {
  /** Ephemeral stages (dev, CI) may be destroyed with their data; every other stage keeps it. */
  ephemeral: boolean
}

/**
 * The service's tables, built from the same key schemas the local table creator uses. No physical
 * names: CloudFormation generates them and the stack hands them to the functions, so two stages
 * live side by side in one account.
 */
export class GrantTables extends Construct {
  readonly issuers: Table
  readonly apiKeys: Table
  readonly programs: Table
  readonly grants: Table

  constructor(scope: Construct, id: string, props: GrantTablesProps) {
    super(scope, id)
    const make = (key: TableKey, constructId: string) => {
      const schema = TABLES[key]
      const table = new Table(this, constructId, {
        partitionKey: attribute(schema.partitionKey),
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        encryption: TableEncryption.AWS_MANAGED,
        deletionProtection: !props.ephemeral,
        removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      })
      for (const index of schema.globalSecondaryIndexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.indexName,
          partitionKey: attribute(index.partitionKey),
          ...('sortKey' in index ? { sortKey: attribute(index.sortKey) } : {}),
        })
      }
      return table
    }
    this.issuers = make('issuers', 'Issuers')
    this.apiKeys = make('apiKeys', 'ApiKeys')
    this.programs = make('programs', 'Programs')
    this.grants = make('grants', 'Grants')
  }

  all(): Table[] {
    return [this.issuers, this.apiKeys, this.programs, this.grants]
  }
}
