import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  keyIdOf,
  keyResource,
  MANAGE_STORE_OPTIONS,
  manageJson,
} from '../../manage-admin'
import { manageHandler } from '../../manage-handler'

/**
 * `POST /manage/issuers/{issuerId}/keys/{keyId}/revoke`: the key is refused by the grant API from
 * its very next request (the grant transaction checks the key item). One transaction with the
 * audit entry; revoking a revoked key answers the key and writes nothing.
 */
export const makeRevokeKeyHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('RevokeKey', { memberships }, async (request) => {
    const keyId = keyIdOf(request.event)
    const admin = adminFor(store, request, runtime.clock)
    const key = await admin.revokeKey(keyId, { issuerId: request.membership?.issuerId })
    return manageJson(200, keyResource(key))
  })
}
