// Cold-start baseline: a handler that only creates the DynamoDB document client and returns.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}))

export const handler = async () => ({ statusCode: 200, body: client ? 'ok' : '' })
