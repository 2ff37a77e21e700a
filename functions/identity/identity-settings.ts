/**
 * The identity settings both sides read: the CDK stack (lib/identity.ts, lib/stage-config.ts) and
 * the code that runs or emulates Cognito's side (the CustomMessage trigger, later the local
 * emulator). Pure data and one pure parser, no AWS imports.
 */

/**
 * The environment variables of the CustomMessage trigger (the stack sets both; so does the local
 * emulator's stand-in): the console's address, and how the pool sends e-mail (EmailSendingAccount:
 * `COGNITO_DEFAULT`, Cognito's own sender, or `DEVELOPER`, through the stage's SES identity).
 */
export const IDENTITY_ENV = {
  consoleUrl: 'CONSOLE_URL',
  emailSending: 'POOL_EMAIL_SENDING',
} as const

/** The pool's EmailSendingAccount, as the stack configures it (lib/identity.ts). */
export type EmailSending = 'COGNITO_DEFAULT' | 'DEVELOPER'

/**
 * POOL_EMAIL_SENDING as the trigger reads it: unset means Cognito's default sender (the default
 * deploy's); anything else than the two names stops the function at init.
 */
export const parseEmailSending = (raw: string | undefined): EmailSending => {
  if (raw === undefined || raw.trim() === '') return 'COGNITO_DEFAULT'
  if (raw === 'COGNITO_DEFAULT' || raw === 'DEVELOPER') return raw
  throw new Error(
    `${IDENTITY_ENV.emailSending} must be COGNITO_DEFAULT or DEVELOPER, got ${JSON.stringify(raw)}`,
  )
}

/**
 * What invitation e-mails link to until a stage sets `-c consoleUrl=https://...`. `.invalid` is
 * reserved (RFC 2606), so the link can never reach someone else's site, and the name says what to do.
 */
export const CONSOLE_URL_PLACEHOLDER = 'https://console-url-not-set.invalid/'

export const PRODUCT_NAME = 'Virtual Shares'

/**
 * Passwords: at least 15 characters and no character-class rules. NIST SP 800-63B-4 (3.1.1.2)
 * asks for 15 or more characters where a password may be the only factor (MFA here is optional
 * until a user turns it on) and says verifiers SHALL NOT impose composition rules: they push people
 * to `Password1!` patterns without adding entropy, while length does. A password manager's or a
 * passphrase's 15 characters pass as they are.
 */
export const PASSWORD_POLICY = {
  minLength: 15,
  requireLowercase: false,
  requireUppercase: false,
  requireDigits: false,
  requireSymbols: false,
  /** How long an invitation's temporary password works (AdminCreateUser). */
  temporaryPasswordValidityDays: 7,
} as const

/** Token lifetimes of the console's app client. */
export const TOKEN_VALIDITY = {
  accessTokenMinutes: 60,
  idTokenMinutes: 60,
  refreshTokenDays: 30,
} as const

/** Hosts that may be reached over plain http: a console running on the developer's machine. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * The console's address as invitation e-mails show it, or an Error saying what is wrong. https only
 * (http for a loopback host, for a console run locally), no user name or password in it: it goes
 * out in e-mails.
 */
export const parseConsoleUrl = (raw: string): string => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`consoleUrl must be an absolute URL, got ${JSON.stringify(raw)}`)
  }
  const local = url.protocol === 'http:' && LOOPBACK.has(url.hostname)
  if (url.protocol !== 'https:' && !local) {
    throw new Error(`consoleUrl must be an https:// URL, got ${JSON.stringify(raw)}`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new Error('consoleUrl must not contain a user name or password')
  }
  return url.href
}
