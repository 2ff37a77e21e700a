import { programView } from '../../../core/admin'
import { adminRoute, manageJson, modeListingOf, programResource } from '../../manage-admin'

/**
 * `GET /manage/issuers/{issuerId}/programs?mode=`: the issuer's programs, oldest first, with their
 * counters as the table holds them now.
 */
export const makeListProgramsHandler = adminRoute('ListPrograms', async (request, admin) => {
  const programs = await admin.listPrograms(modeListingOf(request))
  return manageJson(200, { programs: programs.map((p) => programResource(programView(p))) })
})
