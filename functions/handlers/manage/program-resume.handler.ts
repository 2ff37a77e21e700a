import { config } from '../../config'
import { makeProgramStatusHandler } from '../../http/program-status'
import { documentClient } from '../../stores/dynamodb-client'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/resume` (see program-status.ts). */
export const makeResumeProgramHandler = makeProgramStatusHandler('ResumeProgram', 'resume')

export const handler = makeResumeProgramHandler(documentClient, config.tables)
