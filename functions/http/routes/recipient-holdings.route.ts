import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { bearerOf, type HoldingsUseCase } from '../../core/holdings'
import { holdingsCsv } from '../../domain/holdings'
import { csvPageHeaders, wantsCsv } from '../csv-answer'
import { httpHandler } from '../http-handler'
import { recipientAnswer } from './recipient-route'

/** What the holdings routes run on (wiring/recipient-holdings.deps.ts). */
export type RecipientHoldingsRouteDeps = {
  readonly holdings: Pick<HoldingsUseCase, 'view' | 'startSession' | 'end'>
}

/**
 * `GET /recipient/holdings` with `Authorization: Bearer <session>`: every grant addressed to the
 * session's e-mail in its mode (TEST: its issuer's only), grouped by issuer and program, with the
 * accepted shares' value; each use moves the session's idle end on. With `Accept: text/csv`, the
 * statement (one row per grant, formula-safe). An unknown, ended or idle session: 401
 * `session_expired`.
 */
export const makeRecipientHoldingsHandler = ({ holdings }: RecipientHoldingsRouteDeps) =>
  httpHandler<APIGatewayProxyEventV2>(async (event) => {
    const view = await holdings.view(bearerOf(event.headers.authorization))
    if (!wantsCsv(event.headers.accept)) return recipientAnswer(200, view)
    const headers = csvPageHeaders({
      first: true,
      filename: `holdings-${view.mode.toLowerCase()}.csv`,
      path: event.rawPath,
      nextCursor: undefined,
      query: {},
    })
    return { statusCode: 200, headers, body: holdingsCsv(view) }
  })
