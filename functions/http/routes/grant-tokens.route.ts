import type { makeGrantTokens } from '../../core/grant-tokens'
import { LIMITS } from '../../domain/grant-limits'
import { toGrantDetail } from '../grant-life-resource'
import { grantLocation } from '../grant-resource'
import { httpHandler, json } from '../http-handler'
import { integratorRequest } from '../integrator-request'
import { type JsonEvent, requestIdOf } from '../middleware'
import type { IntegratorRequests } from './integrator-route'

/**
 * What the route needs: the use case, built by the composition root (functions/wiring/), and the
 * key's rate limit and request log over the use case's own access cache.
 */
export type GrantTokensRouteDeps = {
  readonly grantTokens: ReturnType<typeof makeGrantTokens>
} & IntegratorRequests

/** The route's handler over its use case (tests build it over a client that points at a dead socket). */
export const makeGrantTokensHandler = ({ grantTokens, requests }: GrantTokensRouteDeps) =>
  httpHandler<JsonEvent>(
    async (event, deadline, context) => {
      const { grant, replayed } = await grantTokens({
        apiKey: event.headers['x-api-key'],
        programId: event.pathParameters?.programId,
        idempotencyKey: event.headers['idempotency-key'],
        body: event.body,
        deadline,
        requestId: requestIdOf(event, context),
      })
      return json(201, toGrantDetail(grant), {
        location: grantLocation(grant),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      })
    },
    {
      jsonBodyMaxBytes: LIMITS.maxBodyBytes,
      use: requests ? [integratorRequest({ ...requests, withProgram: true })] : [],
    },
  )
