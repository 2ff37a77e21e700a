import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'

/**
 * The one DynamoDB client of the process, created at module scope so a warm Lambda reuses its
 * connections. The DynamoDB Local override lives here and nowhere else.
 */
export const dynamodb = new DynamoDBClient({
  ...(config.dynamodbEndpoint
    ? {
        endpoint: config.dynamodbEndpoint,
        region: config.awsRegion ?? 'local',
        // DynamoDB Local accepts any credentials; these keep a developer's real ones out of it.
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }
    : {}),
  // Fail fast: API Gateway gives up after 30 s, and a caller retrying with the same
  // Idempotency-Key is safe, so a slow call is better answered with a retryable 503.
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
})

export const documentClient = DynamoDBDocumentClient.from(dynamodb, {
  marshallOptions: { removeUndefinedValues: true },
})
