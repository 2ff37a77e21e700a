import { randomInt } from 'node:crypto'
import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  type AttributeType,
  CognitoIdentityProviderClient,
  UserNotFoundException,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider'
import type { IdentityProvider, InvitationInput } from './identity-provider'
import { PASSWORD_POLICY } from './identity-settings'
import { invitationMetadata } from './invitation-message'

/**
 * Why the directory refused a request about a person: not an HTTP answer (the use case that asked
 * decides what to say), only the outcome.
 */
export class IdentityRefusal extends Error {
  constructor(
    /** `unknown`: no account with this address. `active`: they have already set a password. */
    readonly reason: 'unknown' | 'active',
    email: string,
  ) {
    super(
      reason === 'unknown'
        ? `No account for ${email} in the user pool.`
        : `${email} has already signed in and set a password.`,
    )
    this.name = 'IdentityRefusal'
  }
}

/** Letters and digits without look-alikes (0/O, 1/l/I), so a password typed from the e-mail works. */
const LOWER = 'abcdefghijkmnopqrstuvwxyz'
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ'
const DIGITS = '23456789'
/**
 * Symbols that need no escaping in HTML, in a URL or in a shell, and that Cognito counts as
 * symbols: the e-mail is HTML, and people paste the password into terminals too.
 */
const SYMBOLS = '-_'
const ALPHABET = LOWER + UPPER + DIGITS + SYMBOLS

const pick = (chars: string) => chars[randomInt(chars.length)] as string

/**
 * A temporary password for an invitation: at least 20 characters (the policy asks for
 * PASSWORD_POLICY.minLength), with a lower-case letter, an upper-case letter, a digit and a symbol
 * among them, so it passes the pool's policy even if character classes are ever required. About
 * 120 bits from crypto.randomInt; nothing in it needs escaping in the invitation's HTML.
 */
export const generateTemporaryPassword = (length = Math.max(20, PASSWORD_POLICY.minLength)) => {
  const chars = [pick(LOWER), pick(UPPER), pick(DIGITS), pick(SYMBOLS)]
  while (chars.length < length) chars.push(pick(ALPHABET))
  // Fisher-Yates, so the guaranteed classes sit anywhere.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1)
    ;[chars[i], chars[j]] = [chars[j] as string, chars[i] as string]
  }
  return chars.join('')
}

/**
 * A client for the pool's own API: Amazon Cognito in AWS (the region from the runtime), or the
 * local emulator when `endpoint` is set (which checks no signature, so any credentials do).
 */
export const createCognitoClient = (options: { endpoint?: string; region?: string } = {}) =>
  new CognitoIdentityProviderClient(
    options.endpoint
      ? {
          endpoint: options.endpoint,
          region: options.region ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : options.region
        ? { region: options.region }
        : {},
  )

const attribute = (attributes: AttributeType[] | undefined, name: string) =>
  attributes?.find((a) => a.Name === name)?.Value

/** RESET_REQUIRED and the like: the person has had a password of their own. */
const statusOf = (userStatus: string | undefined) =>
  userStatus === 'FORCE_CHANGE_PASSWORD' ? ('invited' as const) : ('active' as const)

/** What the CustomMessage trigger (and the emulator) read: every issuer to name, inviter first. */
const metadataOf = (input: InvitationInput) =>
  invitationMetadata([input.issuerName, ...(input.otherIssuerNames ?? [])])

/** Addresses are the pool's user names, case-insensitive: one spelling everywhere. */
const normalise = (email: string) => email.trim().toLowerCase()

/**
 * The IdentityProvider over Cognito's admin API: the same calls against Amazon Cognito and the local
 * emulator (which local/cognito-local-host.ts completes where cognito-local 5.3.0 falls short:
 * `MessageAction: 'RESEND'`, the temporary password at first sign-in, the password policy).
 *
 * The temporary password is generated here and passed to AdminCreateUser rather than left to
 * Cognito: the invitation is HTML and the password goes in it as it is, so it holds only letters,
 * digits, `-` and `_`; and the emulator's own would be 6 characters, below the policy.
 * The e-mail itself is written by the pool's CustomMessage trigger from the issuer names in
 * ClientMetadata in AWS, and by the emulator's mail sink from the same renderer locally.
 */
export class CognitoIdentityProvider implements IdentityProvider {
  constructor(
    private readonly client: CognitoIdentityProviderClient,
    private readonly userPoolId: string,
    private readonly newPassword: () => string = generateTemporaryPassword,
  ) {}

  async invite(input: InvitationInput) {
    const email = normalise(input.email)
    try {
      const { User } = await this.client.send(
        new AdminCreateUserCommand({
          UserPoolId: this.userPoolId,
          Username: email,
          UserAttributes: [
            { Name: 'email', Value: email },
            // The invitation reaches this address, and signing in with it proves it: verified,
            // so a forgotten password can be reset to it.
            { Name: 'email_verified', Value: 'true' },
          ],
          DesiredDeliveryMediums: ['EMAIL'],
          TemporaryPassword: this.newPassword(),
          ClientMetadata: metadataOf(input),
        }),
      )
      const sub = attribute(User?.Attributes, 'sub')
      if (!sub) throw new Error('AdminCreateUser answered without the new user’s sub')
      return { sub, created: true, status: 'invited' as const }
    } catch (error) {
      if (!(error instanceof UsernameExistsException)) throw error
    }
    // An account already exists: the person is added, and keeps the password they have.
    const existing = await this.get(email)
    const sub = existing && attribute(existing.UserAttributes, 'sub')
    if (!sub) throw new Error(`AdminGetUser found no sub for an existing user (${email})`)
    return { sub, created: false, status: statusOf(existing.UserStatus) }
  }

  /**
   * AdminCreateUser with `MessageAction: 'RESEND'`: a new temporary password, valid 7 days again,
   * and the invitation e-mail, through the same trigger as the first one. Only for a person who has
   * not signed in yet (`FORCE_CHANGE_PASSWORD`): checked first, so the refusal is the same in AWS
   * (where Cognito would answer UnsupportedUserStateException) and locally.
   */
  async resendInvitation(input: InvitationInput) {
    const email = normalise(input.email)
    const user = await this.get(email)
    if (!user) throw new IdentityRefusal('unknown', email)
    if (user.UserStatus !== 'FORCE_CHANGE_PASSWORD') throw new IdentityRefusal('active', email)
    await this.client.send(
      new AdminCreateUserCommand({
        UserPoolId: this.userPoolId,
        Username: email,
        MessageAction: 'RESEND',
        DesiredDeliveryMediums: ['EMAIL'],
        TemporaryPassword: this.newPassword(),
        ClientMetadata: metadataOf(input),
      }),
    )
  }

  async status(email: string): Promise<'invited' | 'active' | 'unknown'> {
    const user = await this.get(normalise(email))
    return user ? statusOf(user.UserStatus) : 'unknown'
  }

  private async get(email: string) {
    try {
      return await this.client.send(
        new AdminGetUserCommand({ UserPoolId: this.userPoolId, Username: email }),
      )
    } catch (error) {
      if (error instanceof UserNotFoundException) return undefined
      throw error
    }
  }
}
