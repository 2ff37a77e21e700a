import { type ApiKeyRecord, keyAuthorizes } from '../domain/api-key'
import { InvalidApiKey, ProgramNotFound, ValidationFailed } from '../domain/errors'
import type { GrantRecord } from '../domain/grant'
import { EmailSchema } from '../domain/grant-request.schema'
import { idPattern } from '../domain/ids'
import { type ProgramRecord, programRefusal } from '../domain/program'
import type { TestTransition } from '../domain/test-transition.schema'
import type { Deadline } from '../runtime/deadline'
import type { GrantReads } from '../stores/grants.store'
import { readCredential } from './authenticator'
import type { GrantLife, RecipientBalance } from './grant-life'
import { refusalError } from './program-refusal'

const PROGRAM_ID = idPattern('program')

type KeyInput = { apiKey: string | undefined; programId: string | undefined; deadline?: Deadline }

/**
 * The integrator's doors to a grant's life (core/grant-life.ts): cancel, the TEST-only move and a
 * recipient's balance, each behind the rules of the integrator's reads (core/get-program.ts): the
 * key read fresh in the same BatchGetItem as the program, another issuer's program answers as a
 * missing one, a key of the other mode is 403. The grant must then be this issuer's, this mode's
 * and this program's, or it answers as a missing one (404 grant_not_found).
 */
export const makeIntegratorGrantLife = ({
  reads,
  life,
  clock = Date.now,
}: {
  reads: Pick<GrantReads, 'findProgramWithKey'>
  life: Pick<GrantLife, 'cancel' | 'testMove' | 'balance'>
  clock?: () => number
}) => {
  /** `checks` run after the key's presence and format and before the database (400s). */
  const authorize = async (
    input: KeyInput,
    checks: () => void = () => {},
  ): Promise<{ key: ApiKeyRecord; program: ProgramRecord }> => {
    const credential = readCredential(input.apiKey)
    checks()
    const programId = input.programId ?? ''
    if (!PROGRAM_ID.test(programId)) throw new ProgramNotFound(programId)
    // The program's head only: none of these needs its counters.
    const { key, program } = await reads.findProgramWithKey(credential.keyHash, programId, {
      signal: input.deadline?.signal,
      totals: false,
    })
    if (!keyAuthorizes(key, credential.mode, clock())) throw new InvalidApiKey()
    const refusal = programRefusal(program, key, 'read')
    if (refusal) throw refusalError(refusal, programId)
    return { key, program: program as ProgramRecord }
  }

  return {
    /** Idempotent: a canceled grant answers as it is; accepted is 409 grant_accepted. */
    async cancel(input: KeyInput & { grantId: string | undefined }): Promise<GrantRecord> {
      const { key, program } = await authorize(input)
      return life.cancel({
        grantId: input.grantId ?? '',
        issuerId: key.issuerId,
        mode: key.mode,
        programId: program.programId,
        actor: { kind: 'key', keyId: key.keyId },
      })
    },

    /** TEST keys only (a LIVE key: 409 test_mode_only); `parse` checks the body (400). */
    async testMove(
      input: KeyInput & { grantId: string | undefined; body: () => TestTransition },
    ): Promise<GrantRecord> {
      let body: TestTransition | undefined
      const { key, program } = await authorize(input, () => {
        body = input.body()
      })
      const { to, reason } = body as TestTransition
      return life.testMove({
        grantId: input.grantId ?? '',
        issuerId: key.issuerId,
        mode: key.mode,
        programId: program.programId,
        to,
        ...(reason === undefined ? {} : { reason }),
      })
    },

    /** The address as the path has it (API Gateway decodes it), normalised like recipient.email. */
    async balance(input: KeyInput & { email: string | undefined }): Promise<RecipientBalance> {
      let email = ''
      const { key, program } = await authorize(input, () => {
        const parsed = EmailSchema.safeParse(input.email ?? '')
        if (!parsed.success) {
          throw new ValidationFailed([
            { field: 'email', message: 'email must be a valid e-mail address' },
          ])
        }
        email = parsed.data
      })
      return life.balance({
        issuerId: key.issuerId,
        mode: key.mode,
        programId: program.programId,
        email,
      })
    },
  }
}
