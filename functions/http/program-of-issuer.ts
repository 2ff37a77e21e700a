import { IssuerProgramNotFound } from '../domain/errors'
import { idPattern } from '../domain/ids'
import type { ProgramRecord } from '../domain/program'
import { ownedBy } from '../domain/program'
import type { CallOptions, GrantStore } from '../stores/grants.store'

const PROGRAM_ID = idPattern('program')

/**
 * The path's program, if it belongs to the path's issuer (the member's, checked by the route):
 * a malformed id (offline), a missing program and another issuer's program all answer the same
 * `404 program_not_found`. Strongly consistent.
 */
export const programOfIssuer = async (
  store: Pick<GrantStore, 'findProgram'>,
  issuerId: string,
  programId: string | undefined,
  options: CallOptions = {},
): Promise<ProgramRecord> => {
  const id = checkProgramId(programId)
  const program = await store.findProgram(id, options)
  if (!ownedBy(program, issuerId)) throw new IssuerProgramNotFound(id)
  return program
}

/** A path program id, checked offline: a malformed one answers exactly like an unknown one (404). */
export const checkProgramId = (programId: string | undefined): string => {
  const id = programId ?? ''
  if (!PROGRAM_ID.test(id)) throw new IssuerProgramNotFound(id)
  return id
}

/** Management answers are about one signed-in person: no shared cache may keep them. */
export const NO_STORE = { 'cache-control': 'no-store' } as const
