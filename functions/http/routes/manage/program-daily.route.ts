import { manageHandler } from '../../manage-handler'
import { manageJson, queryOf } from '../../manage-http'
import { checkProgramId } from '../../program-of-issuer'
import type { ProgramFiguresRouteDeps } from './program-holders.route'

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/daily?from=YYYY-MM-DD&to=YYYY-MM-DD`
 * (viewer): every day of the range (at most 366; days without grants are zeros), the range's
 * totals, and the pool: its size and what is issued and left now, and what was left at the end of
 * each day, derived back from now.
 */
export const makeProgramDailyHandler = ({ figures, ...deps }: ProgramFiguresRouteDeps) =>
  manageHandler('GetProgramDaily', deps, async ({ event, deadline, membership }) => {
    const query = queryOf(event, ['from', 'to'])
    const programId = checkProgramId(event.pathParameters?.programId)
    const answer = await figures.daily(
      membership?.issuerId ?? '',
      programId,
      { from: query.from, to: query.to },
      { signal: deadline.signal },
    )
    return manageJson(200, { object: 'daily_figures', ...answer })
  })
