import { makeProgramStatusHandler } from '../../program-status'

/** `POST /manage/issuers/{issuerId}/programs/{programId}/resume` (see program-status.ts). */
export const makeResumeProgramHandler = makeProgramStatusHandler('ResumeProgram', 'resume')
