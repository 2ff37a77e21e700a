import { adminRoute, auditResource, manageJson, queryOf } from '../../manage-admin'

/**
 * `GET /manage/issuers/{issuerId}/audit?cursor=&limit=`: the issuer's audit log, newest first,
 * 50 entries a page by default (`limit` up to 100). `nextCursor` is null on the last page; a
 * cursor that did not come from here is `400 validation_failed`. Read only: no route changes or
 * deletes an entry.
 */
export const makeListAuditHandler = adminRoute('ListAudit', async (request, admin) => {
  const { cursor, limit } = queryOf(request.event, ['cursor', 'limit'])
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
