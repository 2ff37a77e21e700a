import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import {
  adminRoute,
  emptyBodyMeansEmptyObject,
  keyIdOf,
  keyResource,
  MANAGE_BODY_MAX_BYTES,
  manageJson,
} from '../../manage-admin'
import { RollKeyBody } from '../../manage-bodies'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/keys/{keyId}/roll` `{ grace? }` (no body: the default 24h):
 * a new key now, its secret shown this once; the old key works until the grace period ends
 * (`"0"`: stops now). One transaction with the audit entry. 201, `Cache-Control: no-store`.
 */
export const makeRollKeyHandler = (runtime: Runtime) => {
  return emptyBodyMeansEmptyObject(
    adminRoute<Event>(
      runtime,
      'RollKey',
      async (request, admin) => {
        const keyId = keyIdOf(request.event)
        const { grace } = RollKeyBody.parse(request.event.body)
        const { secret, record, old } = await admin.rollKey(keyId, grace ?? undefined, {
          issuerId: request.membership?.issuerId,
        })
        return manageJson(201, {
          ...keyResource({ ...record, state: 'active' }),
          secret,
          old: keyResource(old),
        })
      },
      { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
    ),
  )
}
