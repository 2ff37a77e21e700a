import { adminRoute, keyIdOf, keyResource, manageJson } from '../../manage-admin'

/**
 * `POST /manage/issuers/{issuerId}/keys/{keyId}/revoke`: the key is refused by the grant API from
 * its very next request (the grant transaction checks the key item). One transaction with the
 * audit entry; revoking a revoked key answers the key and writes nothing.
 */
export const makeRevokeKeyHandler = adminRoute('RevokeKey', async (request, admin) => {
  const keyId = keyIdOf(request.event)
  const key = await admin.revokeKey(keyId, { issuerId: request.membership?.issuerId })
  return manageJson(200, keyResource(key))
})
