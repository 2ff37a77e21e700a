import type { makeGrantTokens } from '../../core/grant-tokens'
import { LIMITS } from '../../domain/grant-limits'
import { toGrantDetail } from '../grant-life-resource'
import { grantLocation } from '../grant-resource'
import { httpHandler, json } from '../http-handler'
import type { JsonEvent } from '../middleware'

/** What the route needs: the use case, built by the composition root (functions/wiring/). */
export type GrantTokensRouteDeps = { readonly grantTokens: ReturnType<typeof makeGrantTokens> }

/** The route's handler over its use case (tests build it over a client that points at a dead socket). */
export const makeGrantTokensHandler = ({ grantTokens }: GrantTokensRouteDeps) =>
  httpHandler<JsonEvent>(
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
