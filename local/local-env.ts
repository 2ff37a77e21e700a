import { resolve } from 'node:path'
import type { AdminTableNames } from '../functions/admin/admin.store'
import { ENV, TABLE_ENV } from '../functions/env-names'
import { tableNames } from '../functions/shared/table-schema'
import type { TableNames } from '../functions/stores/grants.dynamodb'

/**
 * Locally, this file plays the part the CDK stack plays in AWS: it names the tables and hands
 * the names and the DynamoDB Local endpoint to the function through its environment.
 */
export const LOCAL_TABLES: AdminTableNames = tableNames('vs')

/** Where `npm start` keeps data, the endpoint record and the seed; VS_LOCAL_DIR moves it. */
export const localDir = () => resolve(process.env.VS_LOCAL_DIR ?? '.local')

export const localPaths = (dir = localDir()) => ({
  dir,
  data: resolve(dir, 'dynamodb'),
  endpointFile: resolve(dir, 'dynamodb-endpoint.json'),
  seedFile: resolve(dir, 'seed.json'),
})

/** The table variables config.ts reads, as the stack sets them. */
export const tableEnvironment = (tables: TableNames) =>
  Object.fromEntries(
    Object.entries(TABLE_ENV).map(([table, name]) => [name, tables[table as keyof TableNames]]),
  )

export const functionEnvironment = (endpoint: string, tables: TableNames = LOCAL_TABLES) => ({
  ...tableEnvironment(tables),
  [ENV.dynamodbEndpoint]: endpoint,
  [ENV.awsRegion]: 'local',
})
