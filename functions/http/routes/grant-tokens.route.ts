import type { Runtime } from '../../composition'
import { AccessCache } from '../../core/access-cache'
import { makeGrantTokens } from '../../core/grant-tokens'
import { LIMITS } from '../../domain/grant-limits'
import { DynamoDbGrantStore } from '../../stores/grants.dynamodb'
import { toGrantDetail } from '../grant-life-resource'
import { grantLocation } from '../grant-resource'
import { httpHandler, json } from '../http-handler'
import type { JsonEvent } from '../middleware'

/** The route's handler over any document client (tests hand it one that points at a dead socket). */
export const makeGrantTokensHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const store = new DynamoDbGrantStore(client, tables)
  const grantTokens = makeGrantTokens({
    store,
    access: new AccessCache(store, { now: () => runtime.monotonic.now() }),
    clock: () => runtime.clock.now(),
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
      return json(201, toGrantDetail(grant), {
        location: grantLocation(grant),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      })
    },
    { jsonBodyMaxBytes: LIMITS.maxBodyBytes },
  )
}
