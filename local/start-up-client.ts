import { createDocumentClient, createDynamoDbClient } from '../functions/stores/dynamodb-client'

/**
 * How long `npm start`'s own start-up calls wait for DynamoDB Local: creating the tables, the seed,
 * the stream's address. The functions' client gives an attempt 1.5 s (functions/runtime/deadline.ts),
 * right for a request but not for a DynamoDB Local that has just started on an overloaded machine,
 * which can take longer to create a table: start-up then gave up. These calls wait longer, and a
 * bounded number of times: at most `maxAttempts` x `attemptTimeoutMs` each (2.5 minutes).
 */
export const START_UP_DYNAMODB = {
  connectionTimeoutMs: 10_000,
  attemptTimeoutMs: 30_000,
  maxAttempts: 5,
} as const

/** A DynamoDB client (and its document client) for start-up only; destroy it once started. */
export const startUpDynamoDb = (endpoint: string, region = 'local') => {
  const dynamodb = createDynamoDbClient({ endpoint, region, timeouts: START_UP_DYNAMODB })
  return { dynamodb, documentClient: createDocumentClient(dynamodb) }
}
