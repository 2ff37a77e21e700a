import { ENV } from '../env-names'
import { lazyMailer, type Mailer } from '../mail/mailer'
import { CognitoIdentityProvider, createCognitoClient } from './cognito-identity-provider'
import type { IdentityProvider } from './identity-provider'
import { CONSOLE_URL_PLACEHOLDER, parseConsoleUrl } from './identity-settings'

/**
 * Where the member functions find the people directory, read from an environment passed in (as
 * config.ts reads the tables). `USER_POOL_ID` is set by the stack on the functions that invite
 * (InviteMember, ResendInvitation, ListMembers); `COGNITO_ENDPOINT` only locally, for the emulator.
 */
export const loadIdentityConfig = (env: Record<string, string | undefined>) => {
  const optional = (name: string) => {
    const value = env[name]
    return value === undefined || value.trim() === '' ? undefined : value
  }
  const userPoolId = optional(ENV.userPoolId)
  if (userPoolId === undefined) {
    throw new Error(
      `Missing required environment variable ${ENV.userPoolId}. The CDK stack sets it on the member functions; locally, npm start sets it.`,
    )
  }
  return {
    userPoolId,
    cognitoEndpoint: optional(ENV.cognitoEndpoint),
    awsRegion: optional(ENV.awsRegion),
  }
}

export type IdentityConfig = ReturnType<typeof loadIdentityConfig>

export const createIdentityProvider = (config: IdentityConfig): IdentityProvider =>
  new CognitoIdentityProvider(
    createCognitoClient({
      ...(config.cognitoEndpoint === undefined ? {} : { endpoint: config.cognitoEndpoint }),
      ...(config.awsRegion === undefined ? {} : { region: config.awsRegion }),
    }),
    config.userPoolId,
  )

/**
 * The identity provider of this process, created on first use from `env` and kept (a warm Lambda
 * reuses its client). Lazy on purpose: every route's module is imported by the local server and
 * by tests whether or not the pool is configured, and only inviting, resending and listing
 * pending invitations need it; a missing variable fails the first such call, loudly (500 and the
 * message in the log), never the import.
 */
export const lazyIdentityProvider = (env: Record<string, string | undefined> = process.env) => {
  let provider: IdentityProvider | undefined
  return () => {
    provider ??= createIdentityProvider(loadIdentityConfig(env))
    return provider
  }
}

/**
 * The mail of the member functions that may e-mail a person added to another issuer (InviteMember,
 * ResendInvitation): the process's mailer (functions/mail) and the console's address it links to
 * (CONSOLE_URL, which the stack sets on them as on the CustomMessage trigger). Made on first use;
 * a bad address fails that call, loudly, not the import.
 */
export const lazyMemberMail = (env: Record<string, string | undefined> = process.env) => {
  const mailer = lazyMailer(env)
  let mail: { mailer: Mailer; consoleUrl: string } | undefined
  return () => {
    mail ??= {
      mailer: mailer(),
      consoleUrl: parseConsoleUrl(env[ENV.consoleUrl] ?? CONSOLE_URL_PLACEHOLDER),
    }
    return mail
  }
}
