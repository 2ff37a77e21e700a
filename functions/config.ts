import { ENV, TABLE_ENV } from './env-names'
import { GRANT_LIST_INDEXES, type GrantListIndex, INDEX, type TableKey } from './table-schema'

/**
 * GRANTS_LIST_INDEX: unset means `byProgramSlot`; a value that names no listing index stops the
 * function at init, like a missing table name (a typo must not quietly read the other index).
 */
const grantListIndexOf = (value: string | undefined): GrantListIndex => {
  if (value === undefined) return INDEX.grantsByProgramSlot
  const known = GRANT_LIST_INDEXES.find((index) => index === value)
  if (known === undefined) {
    throw new Error(
      `${ENV.grantsListIndex} must be one of ${GRANT_LIST_INDEXES.join(', ')}, got ${JSON.stringify(value)}.`,
    )
  }
  return known
}

type Env = Record<string, string | undefined>

/** A variable's value, or undefined when unset or blank. */
const optionalIn = (env: Env, name: string): string | undefined => {
  const value = env[name]
  return value === undefined || value.trim() === '' ? undefined : value
}

/**
 * Which mailer an environment asks for (functions/mail/mailer.ts's createMailer): SES from the
 * stage's identity, the local mail sink, or nobody.
 */
export const loadMailConfig = (env: Env) => ({
  /** The SES From address (the stage's `sesFromEmail`). */
  from: optionalIn(env, ENV.mailFrom)?.trim(),
  /** The SES region of that identity; default the function's own. */
  sesRegion: (optionalIn(env, ENV.mailSesRegion) ?? optionalIn(env, ENV.awsRegion))?.trim(),
  /** Local only: the mail sink file. */
  sinkFile: optionalIn(env, ENV.mailSinkFile)?.trim(),
  /** The console's address the service's e-mail links to (unset: the placeholder, see identity). */
  consoleUrl: optionalIn(env, ENV.consoleUrl),
  /** The SES configuration set offer mail is sent with (its bounces and complaints come back). */
  configurationSet: optionalIn(env, ENV.mailConfigurationSet)?.trim(),
  /**
   * The origin of the recipient's page (offer links are `<origin>/offer#t=<token>`): RECIPIENT_ORIGIN,
   * else the console's origin (the page is served with the console).
   */
  recipientOrigin: originOf(
    ENV.recipientOrigin,
    optionalIn(env, ENV.recipientOrigin) ?? optionalIn(env, ENV.consoleUrl),
  ),
  /**
   * Offer mails a second when SES's GetAccount cannot be read (default 1, a sandbox account's
   * rate): the offer mailer paces its sends by the account's MaxSendRate, or else by this.
   */
  fallbackSendRate: sendRateOf(optionalIn(env, ENV.mailFallbackSendRate)),
})

/** An origin (`https://host[:port]`), from a URL whose path is ignored; a bad one stops the function at init. */
const originOf = (name: string, value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw new Error(`${name} must be an http(s) URL, got ${JSON.stringify(value)}.`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`${name} must be an http(s) URL, got ${JSON.stringify(value)}.`)
  }
  return url.origin
}

const sendRateOf = (value: string | undefined): number => {
  if (value === undefined) return 1
  const rate = Number(value)
  if (!Number.isFinite(rate) || rate <= 0) {
    throw new Error(
      `${ENV.mailFallbackSendRate} must be a positive number of mails a second, got ${JSON.stringify(value)}.`,
    )
  }
  return rate
}

export type MailConfig = ReturnType<typeof loadMailConfig>

/**
 * The functions' configuration, read from an environment passed in: each entry point's own (a
 * Lambda handler module's `process.env`, what `npm start`, the CLI, the bench or the test setup
 * builds). The only place that knows the variables' names and rules. A missing variable stops the
 * function at init, before it serves a request: a misconfigured deployment should fail loudly, not
 * answer 500 on every call. What only some functions need (the user pool, the mail) is optional here and checked where it is used.
 */
export const loadConfig = (env: Env) => {
  const optional = (name: string) => optionalIn(env, name)
  const required = (name: string): string => {
    const value = optional(name)
    if (value === undefined) {
      throw new Error(
        `Missing required environment variable ${name}. The CDK stack sets it on the function; locally, npm start sets it.`,
      )
    }
    return value
  }
  return {
    tables: Object.fromEntries(
      Object.entries(TABLE_ENV).map(([table, name]) => [table, required(name)]),
    ) as Record<TableKey, string>,
    /** The index grant listings read (see ENV.grantsListIndex). */
    grantListIndex: grantListIndexOf(optional(ENV.grantsListIndex)),
    /** Set only by the local server and tests, to reach DynamoDB Local. Never set in AWS. */
    dynamodbEndpoint: optional(ENV.dynamodbEndpoint),
    /** Set by the Lambda runtime; locally any name does for DynamoDB Local. */
    awsRegion: optional(ENV.awsRegion),
    /** The people directory of the member functions (functions/identity/identity-config.ts). */
    identity: {
      userPoolId: optional(ENV.userPoolId),
      cognitoEndpoint: optional(ENV.cognitoEndpoint),
      awsRegion: optional(ENV.awsRegion),
    },
    mail: loadMailConfig(env),
    /** The send-to-many upload bucket (ENV.uploadBucket): only the routes that use it have it. */
    uploadBucket: optional(ENV.uploadBucket),
    /** Webhooks: how secrets are sealed, and whether loopback receivers are allowed (local only). */
    webhooks: {
      kmsKeyId: optional(ENV.webhookKmsKeyId),
      localSecretKey: optional(ENV.webhookLocalSecretKey),
      allowLoopback: optional(ENV.webhookAllowLoopback) === 'true',
    },
  }
}

export type Config = ReturnType<typeof loadConfig>
