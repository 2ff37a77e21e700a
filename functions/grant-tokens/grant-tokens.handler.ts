import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { AccessCache } from '../shared/access-cache'
import { clock } from '../shared/clock'
import { documentClient } from '../shared/dynamodb'
import { grantLocation, toGrantResource } from '../shared/grant-resource'
import { httpHandler, json } from '../shared/http-handler'
import type { JsonEvent } from '../shared/middleware'
import { DynamoDbGrantStore, type TableNames } from '../stores/grants.dynamodb'
import { LIMITS } from './grant-request.schema'
import { makeGrantTokens } from './grant-tokens.use-case'

/** The route's handler over any document client (tests hand it one that points at a dead socket). */
export const makeGrantTokensHandler = (client: DynamoDBDocumentClient, tables: TableNames) => {
  const store = new DynamoDbGrantStore(client, tables)
  const grantTokens = makeGrantTokens({
    store,
    access: new AccessCache(store),
    clock: () => clock.now(),
  })
  return httpHandler<JsonEvent>(
    async (event, deadline) => {
      const { grant, replayed } = await grantTokens({
        apiKey: event.headers['x-api-key'],
        programId: event.pathParameters?.programId,
        idempotencyKey: event.headers['idempotency-key'],
        body: event.body,
        deadline,
      })
      return json(201, toGrantResource(grant), {
        location: grantLocation(grant),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      })
    },
    { jsonBodyMaxBytes: LIMITS.maxBodyBytes },
  )
}

export const handler = makeGrantTokensHandler(documentClient, config.tables)
