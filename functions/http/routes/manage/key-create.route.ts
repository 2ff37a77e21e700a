import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { adminRoute, keyResource, MANAGE_BODY_MAX_BYTES, manageJson } from '../../manage-admin'
import { CreateKeyBody } from '../../manage-bodies'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/keys` `{ mode, expiresIn? }`: a new key, written in one
 * transaction with its audit entry. 201 with the secret: the only time it is ever shown (only its
 * SHA-256 is stored), so the answer is `Cache-Control: no-store`.
 */
export const makeCreateKeyHandler = (runtime: Runtime) => {
  return adminRoute<Event>(
    runtime,
    'CreateKey',
    async (request, admin) => {
      const body = CreateKeyBody.parse(request.event.body)
      const { secret, record } = await admin.createKey({
        issuer: request.membership?.issuerId,
        ...body,
      })
      return manageJson(201, { ...keyResource({ ...record, state: 'active' }), secret })
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
}
