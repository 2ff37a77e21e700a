import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import * as z from 'zod/mini'
import { EmailSchema, LIMITS } from '../../../domain/grant-request.schema'
import { bodyError, expected } from '../../../domain/request-fields.schema'
import {
  type GrantLifeRouteDeps,
  grantAnswer,
  grantChangeOf,
  grantRoute,
} from '../../manage-grant-life'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/** `{ email }`: the grant API's own rule for a recipient's address, named `email` here. */
export const CorrectEmailBody = z.strictObject(
  { email: z.pipe(z.string({ error: expected('email', 'a string') }), EmailSchema) },
  { error: bodyError },
)

/**
 * `POST /manage/issuers/{issuerId}/grants/{grantId}/correct-email` `{ email }` (admin): the
 * recipient's address of a grant not yet accepted, rejected, expired or canceled. Every link sent
 * to the old address stops working; the offer goes to the new one. Audited `grant.correct_email`
 * (the entry names the grant, not the addresses). The same address again changes nothing.
 */
export const makeManageCorrectEmailHandler = ({ life, ...deps }: GrantLifeRouteDeps) =>
  grantRoute<Event>(
    deps,
    'ManageCorrectEmail',
    async (request) => {
      const { email } = CorrectEmailBody.parse(request.event.body)
      return grantAnswer(await life.correctEmail({ ...grantChangeOf(request), email }))
    },
    // The management bodies' limit (manage-admin.ts), without that module's use cases.
    { jsonBodyMaxBytes: LIMITS.maxBodyBytes },
  )
