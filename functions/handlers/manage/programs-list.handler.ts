import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../../config'
import { programView } from '../../core/admin'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programResource,
  queryOf,
  useCase,
} from '../../http/manage-admin'
import { manageHandler } from '../../http/manage-handler'
import { DynamoDbAdminStore } from '../../stores/admin.dynamodb'
import type { AdminTableNames } from '../../stores/admin.store'
import { documentClient } from '../../stores/dynamodb-client'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

/**
 * `GET /manage/issuers/{issuerId}/programs?mode=`: the issuer's programs, oldest first, with their
 * counters as the table holds them now.
 */
export const makeListProgramsHandler = (
  client: DynamoDBDocumentClient,
  tables: AdminTableNames,
) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('ListPrograms', { memberships }, async (request) => {
    const { mode } = queryOf(request.event, ['mode'])
    const admin = adminFor(store, request)
    const programs = await useCase(() =>
      admin.listPrograms({
        issuer: request.membership?.issuerId,
        ...(mode === undefined ? {} : { mode }),
      }),
    )
    return manageJson(200, { programs: programs.map((p) => programResource(programView(p))) })
  })
}

export const handler = makeListProgramsHandler(documentClient, config.tables)
