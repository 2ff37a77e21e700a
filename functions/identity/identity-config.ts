import type { Config, MailConfig } from '../config'
import { ENV } from '../env-names'
import { lazyMailer, type Mailer } from '../mail/mailer'
import { CognitoIdentityProvider, createCognitoClient } from './cognito-identity-provider'
import type { IdentityProvider } from './identity-provider'
import { CONSOLE_URL_PLACEHOLDER, parseConsoleUrl } from './identity-settings'

/**
 * Where the member functions find the people directory (config.ts's `identity`). `USER_POOL_ID` is
 * set by the stack on the functions that invite (InviteMember, ResendInvitation, ListMembers);
 * `COGNITO_ENDPOINT` only locally, for the emulator.
 */
export type IdentityConfig = Config['identity']

export const createIdentityProvider = (config: IdentityConfig): IdentityProvider => {
  if (config.userPoolId === undefined) {
    throw new Error(
      `Missing required environment variable ${ENV.userPoolId}. The CDK stack sets it on the member functions; locally, npm start sets it.`,
    )
  }
  return new CognitoIdentityProvider(
    createCognitoClient({
      ...(config.cognitoEndpoint === undefined ? {} : { endpoint: config.cognitoEndpoint }),
      ...(config.awsRegion === undefined ? {} : { region: config.awsRegion }),
    }),
    config.userPoolId,
  )
}

/**
 * The identity provider of a route, created on first use and kept (a warm Lambda reuses its
 * client). Lazy on purpose: the local server builds every route whether or not the pool is
 * configured, and only inviting, resending and listing pending invitations need it; a missing
 * pool fails the first such call, loudly (500 and the message in the log), never the start.
 */
export const lazyIdentityProvider = (config: IdentityConfig) => {
  let provider: IdentityProvider | undefined
  return () => {
    provider ??= createIdentityProvider(config)
    return provider
  }
}

/**
 * The mail of the member functions that may e-mail a person added to another issuer (InviteMember,
 * ResendInvitation): a mailer (functions/mail) and the console's address it links to (CONSOLE_URL,
 * which the stack sets on them as on the CustomMessage trigger). Made on first use; a bad address
 * fails that call, loudly, not the start.
 */
export const lazyMemberMail = (config: MailConfig) => {
  const mailer = lazyMailer(config)
  let mail: { mailer: Mailer; consoleUrl: string } | undefined
  return () => {
    mail ??= {
      mailer: mailer(),
      consoleUrl: parseConsoleUrl(config.consoleUrl ?? CONSOLE_URL_PLACEHOLDER),
    }
    return mail
  }
}
