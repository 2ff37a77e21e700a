import type { CustomMessageTriggerEvent } from 'aws-lambda'
import { logger } from '../runtime/logger'
import {
  CONSOLE_URL_PLACEHOLDER,
  type EmailSending,
  IDENTITY_ENV,
  parseConsoleUrl,
  parseEmailSending,
} from './identity-settings'
import { issuerNamesOf, renderMessage } from './invitation-message'

/**
 * Cognito's CustomMessage trigger (its entry point is custom-message.handler.ts): writes the invitation (`CustomMessage_AdminCreateUser`, also
 * for a resend) and the password-reset e-mail (`CustomMessage_ForgotPassword`) from
 * invitation-message.ts; every other message goes out as Cognito wrote it. No AWS calls, no table
 * access: it only renders text. The issuers an invitation names come from the inviter's
 * ClientMetadata (`issuerNames`): the member use cases look up every pending invitation of the
 * person before they call Cognito, so the local emulator, which renders the same text without a
 * trigger, names the same issuers.
 *
 * The subject (`emailSubject`) is returned only when the pool sends through SES
 * (EmailSendingAccount `DEVELOPER`). The Cognito Developer Guide's "Custom message Lambda
 * trigger" page (https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-lambda-custom-message.html,
 * "Custom message Lambda trigger parameters") describes `emailSubject` as "the subject line for
 * the custom message"; its 2021-2023 text (awsdocs/amazon-cognito-developer-guide, same page) said
 * that with EmailSendingAccount other than `DEVELOPER` a returned `emailSubject` makes Cognito fail
 * with InvalidLambdaResponseException; and the API reference still documents the pool's own
 * subject templates as not allowed with COGNITO_DEFAULT (EmailConfigurationType,
 * EmailSendingAccount: "InviteMessageTemplate.EmailSubject" among the parameters that "aren't
 * allowed"; MessageTemplateType.EmailSubject: "allowed only if EmailSendingAccount is DEVELOPER").
 * Not verifiable here without a deployed pool, so the safe reading is taken:
 * with Cognito's default sender (the default deploy) Cognito's own subject line goes out and the
 * body, which names the issuers, is ours.
 */
export type CustomMessageConfig = { consoleUrl: string; emailSending: EmailSending }

/** The trigger's configuration from its environment; a bad value stops it at init. */
export const loadCustomMessageConfig = (
  env: Record<string, string | undefined>,
): CustomMessageConfig => ({
  consoleUrl: parseConsoleUrl(env[IDENTITY_ENV.consoleUrl] ?? ''),
  emailSending: parseEmailSending(env[IDENTITY_ENV.emailSending]),
})

export const makeCustomMessageHandler = (config: CustomMessageConfig) => {
  if (config.consoleUrl === CONSOLE_URL_PLACEHOLDER) {
    logger.warn('consoleUrl is not set for this stage: e-mails link to the placeholder', {
      consoleUrl: config.consoleUrl,
    })
  }
  return async (event: CustomMessageTriggerEvent) => {
    const { request, triggerSource } = event
    const message = renderMessage({
      triggerSource,
      consoleUrl: config.consoleUrl,
      usernameParameter: request.usernameParameter,
      codeParameter: request.codeParameter,
      email: request.userAttributes.email,
      issuerNames: issuerNamesOf(request.clientMetadata),
    })
    // Never the user's name, address or attributes: only what kind of message it was.
    logger.info('custom message', { triggerSource, rendered: message !== undefined })
    if (!message) return event
    // emailMessage is HTML; smsMessage stays as it is (the pool sends no SMS).
    return {
      ...event,
      response: {
        ...event.response,
        ...(config.emailSending === 'DEVELOPER' ? { emailSubject: message.subject } : {}),
        emailMessage: message.html,
      },
    }
  }
}
