import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { Runtime } from '../../../composition'
import { programView } from '../../../core/admin'
import {
  adminRoute,
  MANAGE_BODY_MAX_BYTES,
  manageJson,
  programPath,
  programResource,
} from '../../manage-admin'
import { CreateProgramBody } from '../../manage-bodies'
import type { JsonEvent } from '../../middleware'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/programs` `{ name, mode, pool? }`: a new program, written in
 * one transaction with its audit entry. 201 with the program and its Location.
 */
export const makeCreateProgramHandler = (runtime: Runtime) => {
  return adminRoute<Event>(
    runtime,
    'CreateProgram',
    async (request, admin) => {
      const body = CreateProgramBody.parse(request.event.body)
      const issuerId = request.membership?.issuerId
      const program = await admin.createProgram({ issuer: issuerId, ...body })
      return manageJson(201, programResource(programView(program)), {
        location: programPath(program.issuerId, program.programId),
      })
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
}
