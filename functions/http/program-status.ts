import type { Runtime } from '../composition'
import { type ProgramAction, programView } from '../core/admin'
import { DynamoDbAdminStore } from '../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programIdOf,
  programResource,
} from './manage-admin'
import { manageHandler } from './manage-handler'

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/pause|resume|close`, one function each:
 * the status change and its audit entry in one transaction. A change the program's status does
 * not allow (resume an active program; anything on a closed one) is `409 program_state_conflict`
 * and writes nothing.
 */
export const makeProgramStatusHandler =
  (routeId: string, action: ProgramAction) =>
  ({ documentClient, config, clock }: Runtime) => {
    const memberships = new DynamoDbMembershipReader(documentClient, config.tables)
    const store = new DynamoDbAdminStore(documentClient, config.tables, MANAGE_STORE_OPTIONS)
    return manageHandler(routeId, { memberships }, async (request) => {
      const programId = programIdOf(request.event)
      const admin = adminFor(store, request, clock)
      const program = await admin.changeProgramStatus(programId, action, {
        issuerId: request.membership?.issuerId,
      })
      return manageJson(200, programResource(programView(program)))
    })
  }
