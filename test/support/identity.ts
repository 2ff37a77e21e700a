import { createPrivateKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import {
  type CognitoIdentityProviderClient,
  InitiateAuthCommand,
  RespondToAuthChallengeCommand,
} from '@aws-sdk/client-cognito-identity-provider'
import { decodeJwt, type JWTPayload, SignJWT } from 'jose'
import {
  CognitoIdentityProvider,
  createCognitoClient,
  generateTemporaryPassword,
} from '../../functions/identity/cognito-identity-provider'
import { USER_SCOPE } from '../../functions/routes'
import { jwksUri, type LocalIdentity } from '../../local/cognito-local'
import type { JwtAuthorizerConfig } from '../../local/jwt-authorizer'

/**
 * People and tokens from the run's Cognito emulator (started once by global-setup.ts, like DynamoDB
 * Local): real accounts made through the IdentityProvider, real sign-ins, real tokens; and the
 * tokens an attacker or a bug would bring, each wrong in one way only.
 */

/** The variable global-setup.ts hands the workers the emulator in (JSON of TestIdentity). */
export const TEST_IDENTITY_ENV = 'VS_TEST_IDENTITY_JSON'

/** What invitation e-mails of the test run link to. */
export const TEST_CONSOLE_URL = 'http://localhost:4173/'

export type TestIdentity = LocalIdentity & {
  /** The run's mail sink. */
  mailFile: string
  consoleUrl: string
  /** A second app client of the same pool. */
  otherClientId: string
  /** A second pool of the same emulator, with its own client. */
  otherPool: LocalIdentity
}

export type Person = { sub: string; email: string; password: string }

/** The run's emulator. */
export const identity = (): TestIdentity => {
  const raw = process.env[TEST_IDENTITY_ENV]
  if (!raw)
    throw new Error(`${TEST_IDENTITY_ENV} is not set: run the tests through jest's global setup`)
  return JSON.parse(raw) as TestIdentity
}

/** The authorizer of the run's pool, as startApi gives the local server. */
export const testAuthorizer = (id: LocalIdentity = identity()): JwtAuthorizerConfig => ({
  issuer: id.issuer,
  audience: [id.clientId],
  jwksUri: jwksUri(id),
})

let sharedClient: CognitoIdentityProviderClient | undefined
/** One SDK client per worker, against the emulator. */
export const cognitoClient = () => {
  sharedClient ??= createCognitoClient({ endpoint: identity().endpoint })
  return sharedClient
}

/** The IdentityProvider over the run's pool (what the members routes and the CLI use). */
export const identityProvider = (userPoolId = identity().userPoolId) =>
  new CognitoIdentityProvider(cognitoClient(), userPoolId)

type Tokens = { accessToken: string; idToken: string; exp: number }
/** Per person and app client: signed in once, reused until a minute before expiry. */
const tokens = new Map<string, Tokens>()

const signIn = async (person: Person, clientId: string): Promise<Tokens> => {
  const key = `${person.sub} ${clientId}`
  const cached = tokens.get(key)
  if (cached && cached.exp * 1000 > Date.now() + 60_000) return cached
  const result = await cognitoClient().send(
    new InitiateAuthCommand({
      ClientId: clientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: person.email, PASSWORD: person.password },
    }),
  )
  const fresh = tokensOf(result.AuthenticationResult)
  tokens.set(key, fresh)
  return fresh
}

const tokensOf = (result: { AccessToken?: string; IdToken?: string } | undefined): Tokens => {
  if (!result?.AccessToken || !result.IdToken) throw new Error('The sign-in returned no tokens')
  return {
    accessToken: result.AccessToken,
    idToken: result.IdToken,
    exp: decodeJwt(result.AccessToken).exp ?? 0,
  }
}

/**
 * Completes a first sign-in: the temporary password, then NEW_PASSWORD_REQUIRED with a password of
 * the person's own. Returns the tokens of that sign-in and the new password. The run's emulator and
 * console client unless told otherwise (an `npm start` of a test has its own).
 */
export const completeFirstSignIn = async (
  email: string,
  temporaryPassword: string,
  options: { clientId?: string; newPassword?: string; client?: CognitoIdentityProviderClient } = {},
) => {
  const clientId = options.clientId ?? identity().clientId
  const password = options.newPassword ?? generateTemporaryPassword()
  const client = options.client ?? cognitoClient()
  const challenge = await client.send(
    new InitiateAuthCommand({
      ClientId: clientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: temporaryPassword },
    }),
  )
  if (challenge.ChallengeName !== 'NEW_PASSWORD_REQUIRED') {
    throw new Error(`Expected NEW_PASSWORD_REQUIRED, got ${challenge.ChallengeName}`)
  }
  const answer = await client.send(
    new RespondToAuthChallengeCommand({
      ClientId: clientId,
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      Session: challenge.Session,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: password },
    }),
  )
  return {
    password,
    tokens: tokensOf(answer.AuthenticationResult),
    refreshToken: answer.AuthenticationResult?.RefreshToken,
  }
}

/**
 * A person with an active account: invited through the IdentityProvider (AdminCreateUser, the
 * invitation in the mail sink), first sign-in completed. A fresh address unless one is given
 * (which must not have an account yet: its password would be unknown).
 */
export const signUpPerson = async (
  email = `person-${randomUUID()}@example.com`,
  pool: { userPoolId: string; clientId: string } = identity(),
): Promise<Person> => {
  const temporary = generateTemporaryPassword()
  const provider = new CognitoIdentityProvider(cognitoClient(), pool.userPoolId, () => temporary)
  const { sub, created } = await provider.invite({ email, issuerName: 'Test issuer' })
  if (!created) throw new Error(`${email} already has an account: sign up a fresh address`)
  const address = email.trim().toLowerCase()
  const first = await completeFirstSignIn(address, temporary, { clientId: pool.clientId })
  const person = { sub, email: address, password: first.password }
  tokens.set(`${sub} ${pool.clientId}`, first.tokens)
  return person
}

/** A real access token of the console's client (the one the management API takes). */
export const accessTokenFor = async (person: Person) =>
  (await signIn(person, identity().clientId)).accessToken

/** A real ID token of the console's client: no scope, so the gateway refuses it (403). */
export const idTokenFor = async (person: Person) =>
  (await signIn(person, identity().clientId)).idToken

/** A real access token of the same pool, issued to another app client. */
export const otherClientTokenFor = async (person: Person) =>
  (await signIn(person, identity().otherClientId)).accessToken

let otherPoolPerson: Promise<Person> | undefined
/** A real access token of another pool of the emulator (same signing key, other `iss`). */
export const otherPoolToken = async () => {
  const other = identity().otherPool
  otherPoolPerson ??= signUpPerson(undefined, other)
  return (await signIn(await otherPoolPerson, other.clientId)).accessToken
}

/** The claims of a valid access token of the console's client, for a person or a made-up one. */
export const accessClaims = (person?: Pick<Person, 'sub'>): JWTPayload => {
  const now = Math.floor(Date.now() / 1000)
  const sub = person?.sub ?? randomUUID()
  return {
    sub,
    iss: identity().issuer,
    client_id: identity().clientId,
    token_use: 'access',
    scope: USER_SCOPE,
    auth_time: now,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
    event_id: randomUUID(),
    username: sub,
  }
}

/** The key id cognito-local puts in every token's header (it signs every pool with one key). */
export const EMULATOR_KID = 'CognitoLocal'

const sign = (claims: JWTPayload, key: KeyObject) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: EMULATOR_KID, typ: 'JWT' }).sign(key)

let emulatorKey: KeyObject | undefined
/**
 * Signs with the emulator's own private key: cognito-local ships it in its package
 * (lib/keys/cognitoLocal.private.json), so a test can make a token the emulator would never issue
 * (expired, no scope, another client) whose signature is nonetheless valid, and only the claim
 * under test is wrong. Real Cognito's keys are never available like this.
 */
export const emulatorSignedToken = (claims: JWTPayload) => {
  emulatorKey ??= createPrivateKey(
    (
      JSON.parse(
        readFileSync(require.resolve('cognito-local/lib/keys/cognitoLocal.private.json'), 'utf8'),
      ) as { pem: string }
    ).pem,
  )
  return sign(claims, emulatorKey)
}

let ownKey: KeyObject | undefined
/**
 * A token signed with a key of the test's own, under the emulator's `kid`: right header, right
 * claims (overridable), wrong signature.
 */
export const forgedToken = (claims: JWTPayload = {}) => {
  ownKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
  return sign({ ...accessClaims(), ...claims }, ownKey)
}

/** The person's real access-token claims, moved an hour and a half into the past: expired. */
export const expiredToken = async (person: Person) => {
  const claims = decodeJwt(await accessTokenFor(person))
  const shift = 90 * 60
  return emulatorSignedToken({
    ...claims,
    iat: (claims.iat ?? 0) - shift,
    auth_time: Number(claims.auth_time ?? 0) - shift,
    exp: (claims.exp ?? 0) - shift,
  })
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** An unsigned token (`alg: none`) with valid claims. */
export const unsignedToken = (claims: JWTPayload = accessClaims()) =>
  `${base64url({ alg: 'none', typ: 'JWT', kid: EMULATOR_KID })}.${base64url(claims)}.`

/** `Authorization: Bearer <token>`. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
