import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import { config } from '../../config'
import { programView } from '../../core/admin'
import {
  adminFor,
  MANAGE_BODY_MAX_BYTES,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programPath,
  programResource,
  useCase,
} from '../../http/manage-admin'
import { CreateProgramBody } from '../../http/manage-bodies'
import { manageHandler } from '../../http/manage-handler'
import type { JsonEvent } from '../../http/middleware'
import { DynamoDbAdminStore } from '../../stores/admin.dynamodb'
import type { AdminTableNames } from '../../stores/admin.store'
import { documentClient } from '../../stores/dynamodb-client'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/programs` `{ name, mode, pool? }`: a new program, written in
 * one transaction with its audit entry. 201 with the program and its Location.
 */
export const makeCreateProgramHandler = (
  client: DynamoDBDocumentClient,
  tables: AdminTableNames,
) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler<Event>(
    'CreateProgram',
    { memberships },
    async (request) => {
      const body = CreateProgramBody.parse(request.event.body)
      const admin = adminFor(store, request)
      const issuerId = request.membership?.issuerId
      const program = await useCase(() => admin.createProgram({ issuer: issuerId, ...body }))
      return manageJson(201, programResource(programView(program)), {
        location: programPath(program.issuerId, program.programId),
      })
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
}

export const handler = makeCreateProgramHandler(documentClient, config.tables)
