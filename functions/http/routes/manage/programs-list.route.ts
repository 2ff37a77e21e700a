import type { Runtime } from '../../../composition'
import { programView } from '../../../core/admin'
import { adminRoute, manageJson, programResource, queryOf } from '../../manage-admin'

/**
 * `GET /manage/issuers/{issuerId}/programs?mode=`: the issuer's programs, oldest first, with their
 * counters as the table holds them now.
 */
export const makeListProgramsHandler = (runtime: Runtime) => {
  return adminRoute(runtime, 'ListPrograms', async (request, admin) => {
    const { mode } = queryOf(request.event, ['mode'])
    const programs = await admin.listPrograms({
      issuer: request.membership?.issuerId,
      ...(mode === undefined ? {} : { mode }),
    })
    return manageJson(200, { programs: programs.map((p) => programResource(programView(p))) })
  })
}
