import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  keyResource,
  MANAGE_STORE_OPTIONS,
  manageJson,
  queryOf,
} from '../../manage-admin'
import { manageHandler } from '../../manage-handler'

/**
 * `GET /manage/issuers/{issuerId}/keys?mode=`: the issuer's keys, oldest first: id, mode, prefix
 * and last 4 characters, status, when and by whom created, expiry. Never the secret or its hash.
 */
export const makeListKeysHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('ListKeys', { memberships }, async (request) => {
    const { mode } = queryOf(request.event, ['mode'])
    const admin = adminFor(store, request, runtime.clock)
    const keys = await admin.listKeys({
      issuer: request.membership?.issuerId,
      ...(mode === undefined ? {} : { mode }),
    })
    return manageJson(200, { keys: keys.map(keyResource) })
  })
}
