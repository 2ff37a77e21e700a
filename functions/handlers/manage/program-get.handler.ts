import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../../config'
import {
  adminFor,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programIdOf,
  programResource,
  useCase,
} from '../../http/manage-admin'
import { manageHandler } from '../../http/manage-handler'
import { DynamoDbAdminStore } from '../../stores/admin.dynamodb'
import type { AdminTableNames } from '../../stores/admin.store'
import { documentClient } from '../../stores/dynamodb-client'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

/** `GET /manage/issuers/{issuerId}/programs/{programId}`: one program of the issuer. */
export const makeGetProgramHandler = (client: DynamoDBDocumentClient, tables: AdminTableNames) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler('GetProgram', { memberships }, async (request) => {
    const programId = programIdOf(request.event)
    const admin = adminFor(store, request)
    const program = await useCase(() =>
      admin.showProgram(programId, { issuerId: request.membership?.issuerId }),
    )
    return manageJson(200, programResource(program))
  })
}

export const handler = makeGetProgramHandler(documentClient, config.tables)
