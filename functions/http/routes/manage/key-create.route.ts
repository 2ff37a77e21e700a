import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  keyResource,
  MANAGE_BODY_MAX_BYTES,
  MANAGE_STORE_OPTIONS,
  manageJson,
} from '../../manage-admin'
import { CreateKeyBody } from '../../manage-bodies'
import { manageHandler } from '../../manage-handler'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/keys` `{ mode, expiresIn? }`: a new key, written in one
 * transaction with its audit entry. 201 with the secret: the only time it is ever shown (only its
 * SHA-256 is stored), so the answer is `Cache-Control: no-store`.
 */
export const makeCreateKeyHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler<Event>(
    'CreateKey',
    { memberships },
    async (request) => {
      const body = CreateKeyBody.parse(request.event.body)
      const admin = adminFor(store, request, runtime.clock)
      const { secret, record } = await admin.createKey({
        issuer: request.membership?.issuerId,
        ...body,
      })
      return manageJson(201, { ...keyResource({ ...record, state: 'active' }), secret })
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
}
