import type { Runtime } from '../../../composition'
import { adminRoute, keyResource, manageJson, queryOf } from '../../manage-admin'

/**
 * `GET /manage/issuers/{issuerId}/keys?mode=`: the issuer's keys, oldest first: id, mode, prefix
 * and last 4 characters, status, when and by whom created, expiry. Never the secret or its hash.
 */
export const makeListKeysHandler = (runtime: Runtime) => {
  return adminRoute(runtime, 'ListKeys', async (request, admin) => {
    const { mode } = queryOf(request.event, ['mode'])
    const keys = await admin.listKeys({
      issuer: request.membership?.issuerId,
      ...(mode === undefined ? {} : { mode }),
    })
    return manageJson(200, { keys: keys.map(keyResource) })
  })
}
