import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../../config'
import {
  adminFor,
  keyResource,
  MANAGE_STORE_OPTIONS,
  manageJson,
  queryOf,
  useCase,
} from '../../http/manage-admin'
import { manageHandler } from '../../http/manage-handler'
import { DynamoDbAdminStore } from '../../stores/admin.dynamodb'
import type { AdminTableNames } from '../../stores/admin.store'
import { documentClient } from '../../stores/dynamodb-client'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

/**
 * `GET /manage/issuers/{issuerId}/keys?mode=`: the issuer's keys, oldest first: id, mode, prefix
 * and last 4 characters, status, when and by whom created, expiry. Never the secret or its hash.
 */
export const makeListKeysHandler = (client: DynamoDBDocumentClient, tables: AdminTableNames) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('ListKeys', { memberships }, async (request) => {
    const { mode } = queryOf(request.event, ['mode'])
    const admin = adminFor(store, request)
    const keys = await useCase(() =>
      admin.listKeys({
        issuer: request.membership?.issuerId,
        ...(mode === undefined ? {} : { mode }),
      }),
    )
    return manageJson(200, { keys: keys.map(keyResource) })
  })
}

export const handler = makeListKeysHandler(documentClient, config.tables)
