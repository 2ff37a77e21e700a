import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { AccessCache } from '../core/access-cache'
import { makeGrantTokens } from '../core/grant-tokens'
import { LIMITS } from '../domain/grant-limits'
import { grantLocation, toGrantResource } from '../http/grant-resource'
import { httpHandler, json } from '../http/http-handler'
import type { JsonEvent } from '../http/middleware'
import { clock } from '../runtime/clock'
import { documentClient } from '../stores/dynamodb-client'
import { DynamoDbGrantStore, type TableNames } from '../stores/grants.dynamodb'

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
