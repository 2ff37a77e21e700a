import { keyAuthorizes } from '../domain/api-key'
import { GrantNotFound, InvalidApiKey, ModeMismatch } from '../domain/errors'
import type { GrantRecord } from '../domain/grant'
import { idPattern } from '../domain/ids'
import { ownedBy } from '../domain/program'
import type { Deadline } from '../runtime/deadline'
import type { GrantStore } from '../stores/grants.store'
import { readCredential } from './authenticator'

export type GetGrantInput = {
  apiKey: string | undefined
  programId: string | undefined
  grantId: string | undefined
  deadline?: Deadline
}

const PROGRAM_ID = idPattern('program')
const GRANT_ID = idPattern('grant')

/** `GET /programs/{programId}/grants/{grantId}` for an integrator. */
export const makeGetGrant =
  (deps: { store: Pick<GrantStore, 'findGrantWithKey'>; clock: () => number }) =>
  async (input: GetGrantInput): Promise<GrantRecord> => {
    const credential = readCredential(input.apiKey)
    const programId = input.programId ?? ''
    const grantId = input.grantId ?? ''
    if (!PROGRAM_ID.test(programId) || !GRANT_ID.test(grantId)) throw new GrantNotFound(grantId)

    // Key and grant in one round trip; the key's status is read fresh on every call.
    const { key, grant } = await deps.store.findGrantWithKey(credential.keyHash, grantId, {
      signal: input.deadline?.signal,
    })
    if (!keyAuthorizes(key, credential.mode, deps.clock())) throw new InvalidApiKey()
    // Another issuer's grant, or one filed under another program, answers as a missing one.
    if (!ownedBy(grant, key.issuerId) || grant.programId !== programId) {
      throw new GrantNotFound(grantId)
    }
    if (grant.mode !== key.mode) throw new ModeMismatch(grant.mode, key.mode)
    return grant
  }
