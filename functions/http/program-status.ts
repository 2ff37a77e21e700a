import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { type ProgramAction, programView } from '../core/admin'
import { DynamoDbAdminStore } from '../stores/admin.dynamodb'
import type { AdminTableNames } from '../stores/admin.store'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programIdOf,
  programResource,
  useCase,
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
  (client: DynamoDBDocumentClient, tables: AdminTableNames) => {
    const memberships = new DynamoDbMembershipReader(client, tables)
    const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
    return manageHandler(routeId, { memberships }, async (request) => {
      const programId = programIdOf(request.event)
      const admin = adminFor(store, request)
      const program = await useCase(() =>
        admin.changeProgramStatus(programId, action, { issuerId: request.membership?.issuerId }),
      )
      return manageJson(200, programResource(programView(program)))
    })
  }
