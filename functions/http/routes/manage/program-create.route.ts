import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { programView } from '../../../core/admin'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import {
  adminFor,
  MANAGE_BODY_MAX_BYTES,
  MANAGE_STORE_OPTIONS,
  manageJson,
  programPath,
  programResource,
} from '../../manage-admin'
import { CreateProgramBody } from '../../manage-bodies'
import { manageHandler } from '../../manage-handler'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/programs` `{ name, mode, pool? }`: a new program, written in
 * one transaction with its audit entry. 201 with the program and its Location.
 */
export const makeCreateProgramHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler<Event>(
    'CreateProgram',
    { memberships },
    async (request) => {
      const body = CreateProgramBody.parse(request.event.body)
      const admin = adminFor(store, request, runtime.clock)
      const issuerId = request.membership?.issuerId
      const program = await admin.createProgram({ issuer: issuerId, ...body })
      return manageJson(201, programResource(programView(program)), {
        location: programPath(program.issuerId, program.programId),
      })
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
}
