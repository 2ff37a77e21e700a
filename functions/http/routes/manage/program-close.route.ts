import { makeProgramStatusHandler } from '../../program-status'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/close` (see program-status.ts). */
export const makeCloseProgramHandler = makeProgramStatusHandler('CloseProgram', 'close')
