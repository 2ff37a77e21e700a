import { type ProgramAction, programView } from '../core/admin'
import { adminRoute, manageJson, programIdOf, programResource } from './manage-admin'

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/pause|resume|close`, one function each:
 * the status change and its audit entry in one transaction. A change the program's status does
 * not allow (resume an active program; anything on a closed one) is `409 program_state_conflict`
 * and writes nothing.
 */
export const makeProgramStatusHandler = (routeId: string, action: ProgramAction) =>
  adminRoute(routeId, async (request, admin) => {
    const programId = programIdOf(request.event)
    const program = await admin.changeProgramStatus(programId, action, {
      issuerId: request.membership?.issuerId,
    })
    return manageJson(200, programResource(programView(program)))
  })
