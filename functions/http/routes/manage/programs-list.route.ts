import type { Runtime } from '../../../composition'
import { programView } from '../../../core/admin'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programResource,
  queryOf,
} from '../../manage-admin'
import { manageHandler } from '../../manage-handler'

/**
 * `GET /manage/issuers/{issuerId}/programs?mode=`: the issuer's programs, oldest first, with their
 * counters as the table holds them now.
 */
export const makeListProgramsHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('ListPrograms', { memberships }, async (request) => {
    const { mode } = queryOf(request.event, ['mode'])
    const admin = adminFor(store, request, runtime.clock)
    const programs = await admin.listPrograms({
      issuer: request.membership?.issuerId,
      ...(mode === undefined ? {} : { mode }),
    })
    return manageJson(200, { programs: programs.map((p) => programResource(programView(p))) })
  })
}
