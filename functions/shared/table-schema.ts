/**
 * Key schemas of the tables, the single source for the CDK stack and for the local
 * table creator, so the tables in AWS and on a laptop cannot drift. Pure data: no SDK imports.
 */
export type AttributeType = 'S' | 'N'
export type IndexSchema = {
  indexName: string
  partitionKey: { name: string; type: AttributeType }
  sortKey?: { name: string; type: AttributeType }
}
export type TableSchema = {
  partitionKey: { name: string; type: AttributeType }
  globalSecondaryIndexes: IndexSchema[]
}

export const INDEX = {
  keysById: 'byKeyId',
  keysByIssuer: 'byIssuer',
  programsByIssuer: 'byIssuer',
  grantsByProgram: 'byProgram',
} as const

export const TABLES = {
  /** Issuers: read and written only by the admin CLI; the functions never touch it. */
  issuers: {
    partitionKey: { name: 'issuerId', type: 'S' },
    globalSecondaryIndexes: [],
  },
  apiKeys: {
    partitionKey: { name: 'keyHash', type: 'S' },
    globalSecondaryIndexes: [
      { indexName: INDEX.keysById, partitionKey: { name: 'keyId', type: 'S' } },
      {
        indexName: INDEX.keysByIssuer,
        partitionKey: { name: 'issuerId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
      },
    ],
  },
  programs: {
    partitionKey: { name: 'programId', type: 'S' },
    globalSecondaryIndexes: [
      {
        indexName: INDEX.programsByIssuer,
        partitionKey: { name: 'issuerId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
      },
    ],
  },
  grants: {
    partitionKey: { name: 'grantId', type: 'S' },
    globalSecondaryIndexes: [
      {
        indexName: INDEX.grantsByProgram,
        partitionKey: { name: 'programId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
      },
    ],
  },
} as const satisfies Record<string, TableSchema>

export type TableKey = keyof typeof TABLES
