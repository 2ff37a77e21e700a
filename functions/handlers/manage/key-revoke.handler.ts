import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../../config'
import {
  adminFor,
  keyIdOf,
  keyResource,
  MANAGE_STORE_OPTIONS,
  manageJson,
  useCase,
} from '../../http/manage-admin'
import { manageHandler } from '../../http/manage-handler'
import { DynamoDbAdminStore } from '../../stores/admin.dynamodb'
import type { AdminTableNames } from '../../stores/admin.store'
import { documentClient } from '../../stores/dynamodb-client'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

/**
 * `POST /manage/issuers/{issuerId}/keys/{keyId}/revoke`: the key is refused by the grant API from
 * its very next request (the grant transaction checks the key item). One transaction with the
 * audit entry; revoking a revoked key answers the key and writes nothing.
 */
export const makeRevokeKeyHandler = (client: DynamoDBDocumentClient, tables: AdminTableNames) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('RevokeKey', { memberships }, async (request) => {
    const keyId = keyIdOf(request.event)
    const admin = adminFor(store, request)
    const key = await useCase(() =>
      admin.revokeKey(keyId, { issuerId: request.membership?.issuerId }),
    )
    return manageJson(200, keyResource(key))
  })
}

export const handler = makeRevokeKeyHandler(documentClient, config.tables)
