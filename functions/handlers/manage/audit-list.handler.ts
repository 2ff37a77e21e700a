import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../../config'
import {
  adminFor,
  auditResource,
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
 * `GET /manage/issuers/{issuerId}/audit?cursor=&limit=`: the issuer's audit log, newest first,
 * 50 entries a page by default (`limit` up to 100). `nextCursor` is null on the last page; a
 * cursor that did not come from here is `400 validation_failed`. Read only: no route changes or
 * deletes an entry.
 */
export const makeListAuditHandler = (client: DynamoDBDocumentClient, tables: AdminTableNames) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('ListAudit', { memberships }, async (request) => {
    const { cursor, limit } = queryOf(request.event, ['cursor', 'limit'])
    const admin = adminFor(store, request)
    const page = await useCase(() =>
      admin.listAudit({
        issuer: request.membership?.issuerId,
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit }),
      }),
    )
    return manageJson(200, {
      entries: page.entries.map(auditResource),
      nextCursor: page.nextCursor,
    })
  })
}

export const handler = makeListAuditHandler(documentClient, config.tables)
