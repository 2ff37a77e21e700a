import { type ApiKeyRecord, keyAuthorizes } from '../domain/api-key'
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

/** The key that asked and the program it may read. */
export type ProgramAccessGranted = { key: ApiKeyRecord; program: ProgramRecord }

/**
 * The integrator's door to a program, the same for every key route that names one (the GET of
 * the program, the listing of its grants, a grant's life in core/integrator-grant-life.ts): the
 * key is read fresh (a revoked or expired key is refused on the very next call), another issuer's
 * program answers exactly like a missing one, and a key of the other mode is `403 mode_mismatch`.
 * Key and program come in one round trip.
 */
export const makeProgramAccess = (deps: {
  store: Pick<GrantReads, 'findProgramWithKey'>
  clock: () => number
}) => {
  /** `checks` run after the key's presence and format and before the database (400s). */
  const access = async (
    input: ProgramReadInput,
    checks: (credential: Credential) => void = () => {},
    /** Sum `issued`/`remaining` over the program's shards (a second round trip); a listing need not. */
    totals = true,
  ): Promise<ProgramAccessGranted> => {
    const credential = readCredential(input.apiKey)
    checks(credential)
    const programId = input.programId ?? ''
    if (!PROGRAM_ID.test(programId)) throw new ProgramNotFound(programId)
    const { key, program } = await deps.store.findProgramWithKey(credential.keyHash, programId, {
      signal: input.deadline?.signal,
      totals,
    })
    if (!keyAuthorizes(key, credential.mode, deps.clock())) throw new InvalidApiKey()
    const refusal = programRefusal(program, key, 'read')
    if (refusal) throw refusalError(refusal, programId)
    return { key, program: program as ProgramRecord }
  }
  return access
}

export type ProgramAccess = ReturnType<typeof makeProgramAccess>
