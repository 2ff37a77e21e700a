import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { DYNAMODB_TIMEOUTS } from '../runtime/deadline'

export type DynamoDbClientOptions = {
  endpoint?: string | undefined
  region?: string | undefined
  /** The service's (DYNAMODB_TIMEOUTS) unless given: npm start's start-up waits longer. */
  timeouts?: {
    connectionTimeoutMs: number
    attemptTimeoutMs: number
    maxAttempts: number
  }
}

/** A DynamoDB client with the service's timeouts; `endpoint` only for DynamoDB Local (or a test). */
export const createDynamoDbClient = ({
  endpoint,
  region,
  timeouts = DYNAMODB_TIMEOUTS,
}: DynamoDbClientOptions = {}) =>
  new DynamoDBClient({
    ...(endpoint
      ? {
          endpoint,
          region: region ?? 'local',
          // DynamoDB Local accepts any credentials; these keep a developer's real ones out of it.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
    maxAttempts: timeouts.maxAttempts,
    requestHandler: {
      connectionTimeout: timeouts.connectionTimeoutMs,
      requestTimeout: timeouts.attemptTimeoutMs,
      // Without it @smithy/node-http-handler 4.x only logs a warning when requestTimeout passes,
      // and a connection that accepts and never answers is waited on forever.
      throwOnRequestTimeout: true,
    },
  })

export const createDocumentClient = (client: DynamoDBClient) =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } })
