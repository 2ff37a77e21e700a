import { keyAuthorizes } from '../domain/api-key'
import { InvalidApiKey, ProgramNotFound } from '../domain/errors'
import { idPattern } from '../domain/ids'
import { type ProgramRecord, programRefusal } from '../domain/program'
import type { Deadline } from '../runtime/deadline'
import type { GrantReads } from '../stores/grants.store'
import { type Credential, readCredential } from './authenticator'
import { refusalError } from './program-refusal'

const PROGRAM_ID = idPattern('program')

export type ProgramReadInput = {
  apiKey: string | undefined
  programId: string | undefined
  deadline?: Deadline
}

/**
 * The integrator's program, with the same rules as the GET of a grant: the key is read fresh (a
 * revoked or expired key is refused on the very next call), another issuer's program answers
 * exactly like a missing one, and a key of the other mode is `403 mode_mismatch`. Key and program
 * come in one round trip.
 */
export const makeProgramReader = ({
  store,
  clock = Date.now,
}: {
  store: GrantReads
  clock?: () => number
}) => {
  /** `checks` run after the key's presence and format and before the database (400s). */
  const read = async (
    input: ProgramReadInput,
    checks: (credential: Credential) => void = () => {},
    /** Sum `issued`/`remaining` over the program's shards (a second round trip); a listing need not. */
    totals = true,
  ): Promise<ProgramRecord> => {
    const credential = readCredential(input.apiKey)
    checks(credential)
    const programId = input.programId ?? ''
    if (!PROGRAM_ID.test(programId)) throw new ProgramNotFound(programId)
    const { key, program } = await store.findProgramWithKey(credential.keyHash, programId, {
      signal: input.deadline?.signal,
      totals,
    })
    if (!keyAuthorizes(key, credential.mode, clock())) throw new InvalidApiKey()
    const refusal = programRefusal(program, key, 'read')
    if (refusal) throw refusalError(refusal, programId)
    return program as ProgramRecord
  }
  return read
}

export type ProgramReader = ReturnType<typeof makeProgramReader>
