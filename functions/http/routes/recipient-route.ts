import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import type { GrantLife } from '../../core/grant-life'
import { RECIPIENT_BODY_MAX_BYTES } from '../../domain/recipient-request.schema'
import { httpHandler, json } from '../http-handler'
import type { JsonEvent } from '../middleware'

/**
 * What the recipient's public routes (`POST /recipient/...`, auth `function`: no key, no sign-in)
 * share: the grant's life and a clock (built by the composition root), and a handler that checks the JSON
 * body before the use case runs (a 400 `validation_failed` names each field, and writes nothing).
 * The link token travels in the body, never in a URL, so it reaches no access log; answers are
 * `no-store` (they hold the recipient's own grants).
 */
export type RecipientRouteDeps = {
  readonly life: Pick<GrantLife, 'view' | 'identify' | 'accept' | 'decline'>
  readonly clock: () => number
}

export const NO_STORE = { 'cache-control': 'no-store' } as const

export const recipientAnswer = (status: number, body: unknown) => json(status, body, NO_STORE)

export const recipientHandler = <T>(
  schema: { parse(body: unknown): T },
  run: (body: T) => Promise<APIGatewayProxyStructuredResultV2>,
) =>
  httpHandler<JsonEvent>(async (event) => run(schema.parse(event.body)), {
    jsonBodyMaxBytes: RECIPIENT_BODY_MAX_BYTES,
  })
