import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import * as z from 'zod/mini'
import type { Runtime } from '../../../composition'
import { EmailSchema } from '../../../domain/grant-request.schema'
import { MANAGE_BODY_MAX_BYTES } from '../../manage-admin'
import { grantAnswer, grantLifeRoute } from '../../manage-grant-life'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/** `{ email }`: the grant API's own rule for a recipient's address, named `email` here. */
export const CorrectEmailBody = z.strictObject(
  {
    email: z.pipe(
      z.string({
        error: (issue) =>
          issue.input === undefined ? 'email is required' : 'email must be a string',
      }),
      EmailSchema,
    ),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'The body must be a JSON object' : undefined,
  },
)

/**
 * `POST /manage/issuers/{issuerId}/grants/{grantId}/correct-email` `{ email }` (admin): the
 * recipient's address of a grant not yet accepted, rejected, expired or canceled. Every link sent
 * to the old address stops working; the offer goes to the new one. Audited `grant.correct_email`
 * (the entry names the grant, not the addresses). The same address again changes nothing.
 */
export const makeManageCorrectEmailHandler = (runtime: Runtime) =>
  grantLifeRoute<Event>(
    runtime,
    'ManageCorrectEmail',
    async (request, life) => {
      const { email } = CorrectEmailBody.parse(request.event.body)
      return grantAnswer(
        await life.correctEmail({
          grantId: request.grantId,
          issuerId: request.issuerId,
          email,
          actor: request.actor,
          audit: { requestId: request.requestId },
        }),
      )
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
