import { programView } from '../../../core/admin'
import { adminBodyRoute, manageJson, programPath, programResource } from '../../manage-admin'
import { CreateProgramBody } from '../../manage-bodies'

/**
 * `POST /manage/issuers/{issuerId}/programs` `{ name, mode, pool? }`: a new program, written in
 * one transaction with its audit entry. 201 with the program and its Location.
 */
export const makeCreateProgramHandler = adminBodyRoute(
  'CreateProgram',
  CreateProgramBody,
  async (request, admin, body) => {
    const program = await admin.createProgram({ issuer: request.membership?.issuerId, ...body })
    return manageJson(201, programResource(programView(program)), {
      location: programPath(program.issuerId, program.programId),
    })
  },
)
