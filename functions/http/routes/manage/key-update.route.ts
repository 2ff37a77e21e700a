import { adminBodyRoute, keyIdOf, keyResource, manageJson } from '../../manage-admin'
import { KeyChangeBody } from '../../manage-bodies'

/**
 * `PATCH /manage/issuers/{issuerId}/keys/{keyId}` `{ rateLimit }` (admin): the key's rate limit,
 * lowered (only the operator's CLI raises it above the mode's default) or back to the default
 * (null). One transaction with the audit entry, on condition that the key is as it was read.
 */
export const makeUpdateKeyHandler = adminBodyRoute(
  'UpdateKey',
  KeyChangeBody,
  async (request, admin, { rateLimit }) => {
    const keyId = keyIdOf(request.event)
    const key = await admin.setKeyRateLimit(keyId, rateLimit, {
      issuerId: request.membership?.issuerId,
    })
    return manageJson(200, keyResource(key))
  },
)
