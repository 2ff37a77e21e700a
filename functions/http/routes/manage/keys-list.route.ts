import { adminRoute, keyResource, manageJson, modeListingOf } from '../../manage-admin'

/**
 * `GET /manage/issuers/{issuerId}/keys?mode=`: the issuer's keys, oldest first: id, mode, prefix
 * and last 4 characters, status, when and by whom created, expiry. Never the secret or its hash.
 */
export const makeListKeysHandler = adminRoute('ListKeys', async (request, admin) => {
  const keys = await admin.listKeys(modeListingOf(request))
  return manageJson(200, { keys: keys.map(keyResource) })
})
