import type { MiddlewareObj } from '@middy/core'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda'
import type { AccessCache } from '../core/access-cache'
import { type Credential, readCredential } from '../core/authenticator'
import type { RateDecision, RateLimiter } from '../core/rate-limiter'
import { type ApiKeyRecord, isKeyUsable } from '../domain/api-key'
import { RateLimited } from '../domain/errors'
import { isWellFormedIdempotencyKey } from '../domain/grant-limits'
import { idPattern } from '../domain/ids'
import { rateLimitHeaders } from '../domain/rate-limit'
import { requestIdTime } from '../domain/request-id'
import type { RequestLogEntry } from '../domain/request-log'
import { startDeadline } from '../runtime/deadline'
import { recordRequest } from '../runtime/request-log-sink'
import { loggedAsEntry, requestIdOf } from './middleware'

type Result = APIGatewayProxyStructuredResultV2

/** What an integrator route's requests are limited and recorded with (functions/wiring/). */
export type IntegratorRequestDeps = {
  /** One per entry point: its buckets are this instance's share of each key's limit. */
  limiter: Pick<RateLimiter, 'take'>
  /** The key's record, at most CHECK_BOUND_MS old: warm, no read (the grant's own cache). */
  access: Pick<AccessCache, 'check' | 'checkKey'>
  /** Wall clock (ms): a key's expiry and the request's latency. */
  clock?: () => number
  /**
   * The grant route: its use case checks the key and the program through the same cache, so both
   * are read here in the one round trip it would make (a malformed program id: the key alone).
   */
  withProgram?: boolean
}

const PROGRAM_ID = idPattern('program')
const GRANT_ID = idPattern('grant')

type Seen = { startedAt: number; key?: ApiKeyRecord; decision?: RateDecision }
const seen = new WeakMap<object, Seen>()

/** The key a request presents, when it is well-formed (else the route answers 401 as ever). */
const credentialOf = (event: APIGatewayProxyEventV2): Credential | undefined => {
  try {
    return readCredential(event.headers?.['x-api-key'])
  } catch {
    return undefined
  }
}

const problemCode = (response: Result): string | undefined => {
  if (!String(response.headers?.['content-type'] ?? '').startsWith('application/problem+json')) {
    return undefined
  }
  try {
    return (JSON.parse(String(response.body)) as { code?: string }).code
  } catch {
    return undefined
  }
}

/** Ids only where they are ids: a path segment can be anything a caller typed (an address). */
const idOr = (pattern: RegExp, value: string | undefined) =>
  value !== undefined && pattern.test(value) ? value : undefined

const entryOf = (
  event: APIGatewayProxyEventV2,
  context: Context,
  { key, startedAt }: Seen & { key: ApiKeyRecord },
  response: Result,
  now: number,
): RequestLogEntry => {
  const requestId = requestIdOf(event, context)
  const status = response.statusCode ?? 200
  const code = problemCode(response)
  const idempotencyKey = event.headers?.['idempotency-key']
  const location = status === 201 ? String(response.headers?.location ?? '') : ''
  const programId = idOr(PROGRAM_ID, event.pathParameters?.programId)
  const grantId =
    idOr(GRANT_ID, event.pathParameters?.grantId) ?? idOr(GRANT_ID, location.split('/').pop())
  return {
    requestId,
    at: new Date(requestIdTime(requestId) ?? startedAt).toISOString(),
    issuerId: key.issuerId,
    mode: key.mode,
    keyId: key.keyId,
    method: event.requestContext?.http?.method ?? '',
    route: event.routeKey,
    ...(programId === undefined ? {} : { programId }),
    ...(grantId === undefined ? {} : { grantId }),
    status,
    ...(code === undefined ? {} : { code }),
    latencyMs: Math.max(0, now - startedAt),
    ...(idempotencyKey !== undefined && isWellFormedIdempotencyKey(idempotencyKey)
      ? { idempotencyKey }
      : {}),
    replayed: response.headers?.['idempotent-replayed'] === 'true',
  }
}

/**
 * An integrator route's requests (issue 33): the key's rate limit is taken before the route runs
 * (over it: 429 `rate_limited`, nothing done), every answer for a known key carries the RateLimit
 * fields, and each such request is recorded (runtime/request-log-sink.ts). A missing or malformed
 * key is left to the route (401), and an unknown, revoked or expired one too: no fields, no entry.
 * Placed before problemDetails in the chain, so its after/onError see the final answer.
 */
export const integratorRequest = ({
  limiter,
  access,
  clock = Date.now,
  withProgram = false,
}: IntegratorRequestDeps): MiddlewareObj<APIGatewayProxyEventV2, Result> => {
  const finish = async (request: {
    event: APIGatewayProxyEventV2
    context: Context
    response: Result | null
  }) => {
    const state = seen.get(request.event)
    const response = request.response
    if (state?.key === undefined || !response) return
    if (state.decision) {
      response.headers = { ...response.headers, ...rateLimitHeaders(state.decision) }
    }
    recordRequest(
      entryOf(request.event, request.context, { ...state, key: state.key }, response, clock()),
    )
  }
  return {
    before: async ({ event, context }) => {
      const state: Seen = { startedAt: clock() }
      seen.set(event, state)
      const credential = credentialOf(event)
      if (credential === undefined) return
      const programId = event.pathParameters?.programId
      const deadline = startDeadline(context)
      let key: ApiKeyRecord | undefined
      try {
        const options = { signal: deadline.signal }
        key =
          withProgram && programId !== undefined && PROGRAM_ID.test(programId)
            ? (await access.check({ keyHash: credential.keyHash, programId }, options)).key
            : await access.checkKey(credential.keyHash, options)
        // DynamoDB away: the answer is the route's 503 now, within this request's one budget,
        // not after the route has waited for DynamoDB a second time.
      } finally {
        deadline.dispose()
      }
      if (key === undefined || !isKeyUsable(key, clock())) return
      state.key = key
      loggedAsEntry.add(event)
      const decision = limiter.take(key)
      state.decision = decision
      if (!decision.allowed) {
        throw new RateLimited(
          decision.limit,
          decision.retryAfterSeconds ?? 1,
          rateLimitHeaders(decision),
        )
      }
    },
    after: finish,
    onError: finish,
  }
}
