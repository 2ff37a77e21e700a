import { config } from '../../config'
import { makeProgramStatusHandler } from '../../http/program-status'
import { documentClient } from '../../stores/dynamodb-client'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/pause` (see program-status.ts). */
export const makePauseProgramHandler = makeProgramStatusHandler('PauseProgram', 'pause')

export const handler = makePauseProgramHandler(documentClient, config.tables)
