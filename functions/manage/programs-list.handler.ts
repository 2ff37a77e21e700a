import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { DynamoDbAdminStore } from '../admin/admin.dynamodb'
import type { AdminTableNames } from '../admin/admin.store'
import { programView } from '../admin/admin.use-cases'
import { config } from '../config'
import { documentClient } from '../shared/dynamodb'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programResource,
  queryOf,
  useCase,
} from './manage-admin'
import { manageHandler } from './manage-handler'

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
