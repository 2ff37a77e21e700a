import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import type { Deadline } from '../../runtime/deadline'
import { httpHandler, json } from '../http-handler'
import { type IntegratorRequestDeps, integratorRequest } from '../integrator-request'
import type { JsonEvent } from '../middleware'

/**
 * What every integrator route's deps may carry: the key's rate limit and the request log
 * (http/integrator-request.ts). The composition root (functions/wiring/) always gives it.
 */
export type IntegratorRequests = { readonly requests?: IntegratorRequestDeps }

/** What every integrator route reads of its request: the key, the path's ids, the deadline. */
export type KeyRequest = {
  apiKey: string | undefined
  programId: string | undefined
  grantId: string | undefined
  deadline: Deadline
}

/**
 * What the integrator's key routes (`x-api-key`: the reads, cancel, test-transition, balance)
 * share: the use case gets the key and the path's ids, and its result answers 200 as `present`
 * shapes it. `headers` and `jsonBodyMaxBytes` for the routes that need them.
 */
export const integratorRoute = <
  T,
  E extends APIGatewayProxyEventV2 | JsonEvent = APIGatewayProxyEventV2,
>(
  run: (request: KeyRequest, event: E) => Promise<T>,
  present: (result: T) => unknown,
  {
    headers,
    jsonBodyMaxBytes,
    requests,
  }: {
    headers?: Record<string, string>
    jsonBodyMaxBytes?: number
    requests?: IntegratorRequestDeps | undefined
  } = {},
) =>
  httpHandler<E>(
    async (event, deadline) => {
      const request: KeyRequest = {
        apiKey: event.headers['x-api-key'],
        programId: event.pathParameters?.programId,
        grantId: event.pathParameters?.grantId,
        deadline,
      }
      return json(200, present(await run(request, event)), headers)
    },
    { jsonBodyMaxBytes, use: requests ? [integratorRequest(requests)] : [] },
  )
