import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  emptyBodyMeansEmptyObject,
  keyIdOf,
  keyResource,
  MANAGE_BODY_MAX_BYTES,
  MANAGE_STORE_OPTIONS,
  manageJson,
} from '../../manage-admin'
import { RollKeyBody } from '../../manage-bodies'
import { manageHandler } from '../../manage-handler'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/keys/{keyId}/roll` `{ grace? }` (no body: the default 24h):
 * a new key now, its secret shown this once; the old key works until the grace period ends
 * (`"0"`: stops now). One transaction with the audit entry. 201, `Cache-Control: no-store`.
 */
export const makeRollKeyHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return emptyBodyMeansEmptyObject(
    manageHandler<Event>(
      'RollKey',
      { memberships },
      async (request) => {
        const keyId = keyIdOf(request.event)
        const { grace } = RollKeyBody.parse(request.event.body)
        const admin = adminFor(store, request, runtime.clock)
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
