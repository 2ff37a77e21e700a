import { config } from '../config'
import { documentClient } from '../shared/dynamodb'
import { makeProgramStatusHandler } from './program-status'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/close` (see program-status.ts). */
export const makeCloseProgramHandler = makeProgramStatusHandler('CloseProgram', 'close')

export const handler = makeCloseProgramHandler(documentClient, config.tables)
