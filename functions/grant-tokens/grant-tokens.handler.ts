import { config } from '../config'
import { Authenticator } from '../shared/authenticator'
import { clock } from '../shared/clock'
import { documentClient } from '../shared/dynamodb'
import { grantLocation, toGrantResource } from '../shared/grant-resource'
import { httpHandler, json } from '../shared/http-handler'
import type { JsonEvent } from '../shared/middleware'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { LIMITS } from './grant-request.schema'
import { makeGrantTokens } from './grant-tokens.use-case'

const store = new DynamoDbGrantStore(documentClient, config.tables)
const grantTokens = makeGrantTokens({
  store,
  authenticator: new Authenticator(store),
  clock: () => clock.now(),
})

export const handler = httpHandler<JsonEvent>(
  async (event) => {
    const { grant, replayed } = await grantTokens({
      apiKey: event.headers['x-api-key'],
      programId: event.pathParameters?.programId,
      idempotencyKey: event.headers['idempotency-key'],
      body: event.body,
    })
    return json(201, toGrantResource(grant), {
      location: grantLocation(grant),
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    })
  },
  { jsonBodyMaxBytes: LIMITS.maxBodyBytes },
)
