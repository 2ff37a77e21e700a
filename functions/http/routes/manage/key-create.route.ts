import { adminBodyRoute, keyResource, manageJson } from '../../manage-admin'
import { CreateKeyBody } from '../../manage-bodies'

/**
 * `POST /manage/issuers/{issuerId}/keys` `{ mode, expiresIn? }`: a new key, written in one
 * transaction with its audit entry. 201 with the secret: the only time it is ever shown (only its
 * SHA-256 is stored), so the answer is `Cache-Control: no-store`.
 */
export const makeCreateKeyHandler = adminBodyRoute(
  'CreateKey',
  CreateKeyBody,
  async (request, admin, body) => {
    const { secret, record } = await admin.createKey({
      issuer: request.membership?.issuerId,
      ...body,
    })
    return manageJson(201, { ...keyResource({ ...record, state: 'active' }), secret })
  },
)
