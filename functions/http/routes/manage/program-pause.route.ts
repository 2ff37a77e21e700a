import { makeProgramStatusHandler } from '../../program-status'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/pause` (see program-status.ts). */
export const makePauseProgramHandler = makeProgramStatusHandler('PauseProgram', 'pause')
