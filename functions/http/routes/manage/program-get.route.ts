import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programIdOf,
  programResource,
} from '../../manage-admin'
import { manageHandler } from '../../manage-handler'

/** `GET /manage/issuers/{issuerId}/programs/{programId}`: one program of the issuer. */
export const makeGetProgramHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('GetProgram', { memberships }, async (request) => {
    const programId = programIdOf(request.event)
    const admin = adminFor(store, request, runtime.clock)
    const program = await admin.showProgram(programId, { issuerId: request.membership?.issuerId })
    return manageJson(200, programResource(program))
  })
}
