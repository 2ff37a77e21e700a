import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  auditResource,
  MANAGE_STORE_OPTIONS,
  manageJson,
  queryOf,
} from '../../manage-admin'
import { manageHandler } from '../../manage-handler'

/**
 * `GET /manage/issuers/{issuerId}/audit?cursor=&limit=`: the issuer's audit log, newest first,
 * 50 entries a page by default (`limit` up to 100). `nextCursor` is null on the last page; a
 * cursor that did not come from here is `400 validation_failed`. Read only: no route changes or
 * deletes an entry.
 */
export const makeListAuditHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('ListAudit', { memberships }, async (request) => {
    const { cursor, limit } = queryOf(request.event, ['cursor', 'limit'])
    const admin = adminFor(store, request, runtime.clock)
    const page = await admin.listAudit({
      issuer: request.membership?.issuerId,
      ...(cursor === undefined ? {} : { cursor }),
      ...(limit === undefined ? {} : { limit }),
    })
    return manageJson(200, {
      entries: page.entries.map(auditResource),
      nextCursor: page.nextCursor,
    })
  })
}
