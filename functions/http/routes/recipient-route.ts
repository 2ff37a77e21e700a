import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import type { GrantLife } from '../../core/grant-life'
import { bearerOf, type HoldingsUseCase } from '../../core/holdings'
import type { Holder } from '../../domain/holdings'
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
  /** The holdings page's sessions (`Authorization: Bearer`): whose grants a step may touch. */
  readonly holders: Pick<HoldingsUseCase, 'holder'>
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

/**
 * A step on a grant (identify, accept, decline) from the offer page (the link's token in the body,
 * `linkBody`) or from the holdings page (`Authorization: Bearer <session>`, `sessionBody`: the same
 * fields but the token). The body is checked first (bad input writes nothing), then the session;
 * the use case is the same, given the session's holder instead of a token.
 */
export const recipientStep = <L, S>(
  { holders }: Pick<RecipientRouteDeps, 'holders'>,
  linkBody: { parse(body: unknown): L },
  sessionBody: { parse(body: unknown): S },
  run: (input: L | (S & { holder: Holder })) => Promise<unknown>,
) =>
  httpHandler<JsonEvent>(
    async (event) => {
      const authorization = event.headers.authorization
      if (authorization === undefined) {
        return recipientAnswer(200, await run(linkBody.parse(event.body)))
      }
      const body = sessionBody.parse(event.body)
      const holder = await holders.holder(bearerOf(authorization))
      return recipientAnswer(200, await run({ ...body, holder }))
    },
    { jsonBodyMaxBytes: RECIPIENT_BODY_MAX_BYTES },
  )
