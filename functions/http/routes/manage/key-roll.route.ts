import {
  type AdminRouteDeps,
  adminBodyRoute,
  emptyBodyMeansEmptyObject,
  keyIdOf,
  keyResource,
  manageJson,
} from '../../manage-admin'
import { RollKeyBody } from '../../manage-bodies'

const rollKey = adminBodyRoute('RollKey', RollKeyBody, async (request, admin, { grace }) => {
  const keyId = keyIdOf(request.event)
  const { secret, record, old } = await admin.rollKey(keyId, grace ?? undefined, {
    issuerId: request.membership?.issuerId,
  })
  return manageJson(201, {
    ...keyResource({ ...record, state: 'active' }),
    secret,
    old: keyResource(old),
  })
})

/**
 * `POST /manage/issuers/{issuerId}/keys/{keyId}/roll` `{ grace? }` (no body: the default 24h):
 * a new key now, its secret shown this once; the old key works until the grace period ends
 * (`"0"`: stops now). One transaction with the audit entry. 201, `Cache-Control: no-store`.
 */
export const makeRollKeyHandler = (deps: AdminRouteDeps) => emptyBodyMeansEmptyObject(rollKey(deps))
