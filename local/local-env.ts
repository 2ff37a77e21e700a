import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { ENV, TABLE_ENV } from '../functions/env-names'
import type { AdminTableNames } from '../functions/stores/admin.store'
import type { TableNames } from '../functions/stores/grants.dynamodb'
import { tableNames } from '../functions/table-schema'

/**
 * Locally, this file plays the part the CDK stack plays in AWS: it names the tables and hands
 * the names and the DynamoDB Local endpoint to the function through its environment.
 */
export const LOCAL_TABLES: AdminTableNames = tableNames('vs')

/**
 * Where `npm start` keeps data, the endpoint record and the seed: `.local` unless VS_LOCAL_DIR
 * names another folder (the bin/ entry points read that variable and pass it in as `given`).
 */
export const localPaths = (given: string | undefined, dir = resolve(given ?? '.local')) => ({
  dir,
  data: resolve(dir, 'dynamodb'),
  endpointFile: resolve(dir, 'dynamodb-endpoint.json'),
  seedFile: resolve(dir, 'seed.json'),
  /** The Cognito emulator's working and data directory: its pools (`db/`) and the mail sink. */
  cognito: resolve(dir, 'cognito'),
  /** The running emulator, its pool and app client (LocalIdentity), for the CLI and the console. */
  identityFile: resolve(dir, 'identity.json'),
})

/** The table variables config.ts reads, as the stack sets them. */
export const tableEnvironment = (tables: TableNames) =>
  Object.fromEntries(
    Object.entries(TABLE_ENV).map(([table, name]) => [name, tables[table as keyof TableNames]]),
  )

/** A webhook key for this process (tests' workers inherit the global setup's through the environment). */
const processWebhookKey = randomBytes(32).toString('base64')

/**
 * Webhooks locally: loopback receivers allowed, and secrets sealed with a local key: the one given
 * (npm start keeps one in its data folder, local/webhook-key.ts), else the one made for this process.
 */
export const functionEnvironment = (
  endpoint: string,
  tables: TableNames = LOCAL_TABLES,
  webhookSecretKey: string = processWebhookKey,
) => ({
  ...tableEnvironment(tables),
  [ENV.dynamodbEndpoint]: endpoint,
  [ENV.awsRegion]: 'local',
  [ENV.webhookAllowLoopback]: 'true',
  [ENV.webhookLocalSecretKey]: webhookSecretKey,
})

/**
 * The variables that point the functions (and the CLI) at the local user pool: its id, as the stack
 * sets it from the pool, and the emulator's address (never set in AWS). Until config.ts reads them,
 * setting them changes nothing.
 */
export const IDENTITY_ENV_NAMES = {
  userPoolId: 'USER_POOL_ID',
  cognitoEndpoint: 'COGNITO_ENDPOINT',
} as const

export const identityEnvironment = (identity: { endpoint: string; userPoolId: string }) => ({
  [IDENTITY_ENV_NAMES.userPoolId]: identity.userPoolId,
  [IDENTITY_ENV_NAMES.cognitoEndpoint]: identity.endpoint,
})
