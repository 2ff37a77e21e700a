import { type DomainError, ModeMismatch, ProgramInactive, ProgramNotFound } from '../domain/errors'
import type { ProgramRefusal } from '../domain/program'

/**
 * A program's refusal (domain/program.ts) as the error the caller gets. `notFound` names the
 * missing program in the caller's terms (an API key's, or an issuer's on the management API).
 */
export const refusalError = (
  refusal: ProgramRefusal,
  programId: string,
  notFound: (programId: string) => DomainError = (id) => new ProgramNotFound(id),
): DomainError => {
  switch (refusal.kind) {
    case 'not_found':
      return notFound(programId)
    case 'mode_mismatch':
      return new ModeMismatch(refusal.programMode, refusal.callerMode)
    case 'inactive':
      return new ProgramInactive(refusal.status)
  }
}
