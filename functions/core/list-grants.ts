import { GRANT_PAGE, type GrantListQuery, parseGrantListQuery } from '../domain/grant-list-query'
import type { GrantPage, GrantReads } from '../stores/grants.store'
import type { ProgramAccess, ProgramReadInput } from './get-program'

/**
 * `GET /programs/{programId}/grants` for an integrator: the program is checked exactly as by
 * `GET /programs/{programId}` (the same `ProgramAccess`: key fresh, other issuer = missing, other
 * mode = 403), then its grants are listed newest first, a page at a time, filtered by recipient
 * and by state if asked.
 */
export const makeListGrants =
  (deps: { access: ProgramAccess; store: Pick<GrantReads, 'listGrants'> }) =>
  async (
    input: ProgramReadInput & { query: Record<string, string | undefined> | undefined },
  ): Promise<GrantPage> => {
    let query: GrantListQuery = { limit: 0 }
    // The query is checked after the key's presence and format, before any read.
    // Only who may list: the program's counters are not part of a listing.
    const { program } = await deps.access(
      input,
      () => {
        query = parseGrantListQuery(input.query, GRANT_PAGE, [], { status: true })
      },
      false,
    )
    return deps.store.listGrants({
      programId: program.programId,
      ...query,
      signal: input.deadline?.signal,
    })
  }
