import { config } from '../../config'
import { makeProgramStatusHandler } from '../../http/program-status'
import { documentClient } from '../../stores/dynamodb-client'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/close` (see program-status.ts). */
export const makeCloseProgramHandler = makeProgramStatusHandler('CloseProgram', 'close')

export const handler = makeCloseProgramHandler(documentClient, config.tables)
