import { ValidationFailed } from '../domain/errors'
import type { GrantRecord } from '../domain/grant'
import { EmailSchema } from '../domain/grant-request.schema'
import type { TestTransition } from '../domain/test-transition.schema'
import type { ProgramAccess, ProgramReadInput } from './get-program'
import type { GrantLife, RecipientBalance } from './grant-life'

type KeyInput = ProgramReadInput

/**
 * The integrator's doors to a grant's life (core/grant-life.ts): cancel, the TEST-only move and a
 * recipient's balance, each behind the rules of the integrator's reads (core/get-program.ts): the
 * key read fresh in the same BatchGetItem as the program, another issuer's program answers as a
 * missing one, a key of the other mode is 403. The grant must then be this issuer's, this mode's
 * and this program's, or it answers as a missing one (404 grant_not_found).
 */
export const makeIntegratorGrantLife = ({
  access,
  life,
}: {
  access: ProgramAccess
  life: Pick<GrantLife, 'cancel' | 'testMove' | 'balance'>
}) => {
  // `checks` run after the key's presence and format, before the database (400s). The
  // program's head only: none of these needs its counters.
  const authorize = (input: KeyInput, checks?: () => void) => access(input, checks, false)

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
      const balance = await life.balance({
        issuerId: key.issuerId,
        mode: key.mode,
        programId: program.programId,
        email,
      })
      // The value of a share from the head already read: no further read.
      return program.value === undefined ? balance : { ...balance, value: program.value }
    },
  }
}
