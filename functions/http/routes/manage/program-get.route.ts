import { adminRoute, manageJson, programIdOf, programResource } from '../../manage-admin'

/** `GET /manage/issuers/{issuerId}/programs/{programId}`: one program of the issuer. */
export const makeGetProgramHandler = adminRoute('GetProgram', async (request, admin) => {
  const programId = programIdOf(request.event)
  const program = await admin.showProgram(programId, { issuerId: request.membership?.issuerId })
  return manageJson(200, programResource(program))
})
