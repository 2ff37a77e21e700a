import type { CustomMessageTriggerEvent } from 'aws-lambda'
import { logger } from '../shared/logger'
import { CONSOLE_URL_PLACEHOLDER, IDENTITY_ENV, parseConsoleUrl } from './identity-settings'
import { renderMessage } from './invitation-message'

/**
 * Cognito's CustomMessage trigger: writes the invitation (`CustomMessage_AdminCreateUser`) and the
 * password-reset e-mail (`CustomMessage_ForgotPassword`) from invitation-message.ts; every other
 * message goes out as Cognito wrote it. No AWS calls, no table access: it only renders text.
 *
 * The console's address is read once, at cold start; a missing or bad one stops the function at
 * init (Cognito then refuses the invitation with an error the inviter sees) rather than e-mail a
 * broken link.
 */
const consoleUrl = parseConsoleUrl(process.env[IDENTITY_ENV.consoleUrl] ?? '')
if (consoleUrl === CONSOLE_URL_PLACEHOLDER) {
  logger.warn('consoleUrl is not set for this stage: e-mails link to the placeholder', {
    consoleUrl,
  })
}

export const handler = async (event: CustomMessageTriggerEvent) => {
  const { request, triggerSource } = event
  const message = renderMessage({
    triggerSource,
    consoleUrl,
    usernameParameter: request.usernameParameter,
    codeParameter: request.codeParameter,
    email: request.userAttributes.email,
    issuerName: request.clientMetadata?.issuerName,
  })
  // Never the user's name, address or attributes: only what kind of message it was.
  logger.info('custom message', { triggerSource, rendered: message !== undefined })
  if (!message) return event
  // emailMessage is HTML; smsMessage stays as it is (the pool sends no SMS).
  return {
    ...event,
    response: { ...event.response, emailSubject: message.subject, emailMessage: message.html },
  }
}
