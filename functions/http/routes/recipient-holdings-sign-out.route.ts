import type { APIGatewayProxyEventV2 } from 'aws-lambda'
import { bearerOf } from '../../core/holdings'
import { httpHandler } from '../http-handler'
import type { RecipientHoldingsRouteDeps } from './recipient-holdings.route'
import { NO_STORE } from './recipient-route'

/** `DELETE /recipient/holdings/session` with the bearer: sign-out (204); the session is deleted. */
export const makeRecipientHoldingsSignOutHandler = ({ holdings }: RecipientHoldingsRouteDeps) =>
  httpHandler<APIGatewayProxyEventV2>(async (event) => {
    await holdings.end(bearerOf(event.headers.authorization))
    return { statusCode: 204, headers: { ...NO_STORE } }
  })
