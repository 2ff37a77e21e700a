import { ENV } from '../functions/env-names'

/**
 * Locally, the part of the stack's Identity.allowServiceMail: the member functions' own e-mail
 * (functions/mail/mailer.ts) goes to the Cognito emulator's mail sink (MAIL_SINK_FILE, shown at
 * `/_local/mail` beside the invitations), and links to the console `npm start` serves.
 */
export const localMailEnvironment = (options: { mailFile: string; consoleUrl: string }) => ({
  [ENV.mailSinkFile]: options.mailFile,
  [ENV.consoleUrl]: options.consoleUrl,
})
