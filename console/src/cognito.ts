import { config } from './config'
import { postJson } from './post-json'

/**
 * Amazon Cognito's public JSON API with plain fetch: the same calls work against real Cognito
 * (`https://cognito-idp.<region>.amazonaws.com/`) and the emulator of `npm start`. The app client
 * has no secret, so none of these calls is signed.
 */
export class CognitoError extends Error {
  constructor(
    /** Cognito's exception name without its namespace, e.g. `NotAuthorizedException`. */
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}

export type AuthenticationResult = {
  AccessToken: string
  ExpiresIn: number
  IdToken?: string
  RefreshToken?: string
  TokenType?: string
}

type InitiateAuthAnswer = {
  AuthenticationResult?: AuthenticationResult
  ChallengeName?: string
  ChallengeParameters?: Record<string, string>
  Session?: string
}

const call = async <T>(target: string, body: Record<string, unknown>): Promise<T> => {
  const { response, data } = await postJson(
    config().cognitoEndpoint,
    body,
    {
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}`,
      },
    },
    () =>
      new CognitoError(
        'NetworkError',
        'The sign-in service could not be reached. Check your connection and try again.',
      ),
  )
  if (!response.ok) {
    const type = String(data.__type ?? data.code ?? 'UnknownError')
      .split('#')
      .pop() as string
    const message = String(
      data.message ?? data.Message ?? `Sign-in service error ${response.status}`,
    )
    throw new CognitoError(type, message)
  }
  return data as T
}

const clientId = () => config().userPoolClientId

/**
 * Where a sign-in stands after each answer: signed in, or the next step Cognito asks for (a new
 * password on an invitation's first sign-in; a code from the authenticator app when the person
 * has turned it on). `session` ties the step to the password already given.
 */
export type SignInStep =
  | { kind: 'signed-in'; result: AuthenticationResult }
  | { kind: 'new-password'; session: string; username: string }
  | { kind: 'mfa'; session: string; username: string }

const stepOf = (answer: InitiateAuthAnswer, username: string): SignInStep => {
  if (answer.AuthenticationResult) return { kind: 'signed-in', result: answer.AuthenticationResult }
  const next = {
    session: answer.Session ?? '',
    username: answer.ChallengeParameters?.USER_ID_FOR_SRP ?? username,
  }
  if (answer.ChallengeName === 'NEW_PASSWORD_REQUIRED') return { kind: 'new-password', ...next }
  if (answer.ChallengeName === 'SOFTWARE_TOKEN_MFA') return { kind: 'mfa', ...next }
  throw new CognitoError(
    'UnsupportedChallenge',
    `This account needs a sign-in step the console does not support (${answer.ChallengeName ?? 'unknown'}).`,
  )
}

/** Signs in, or asks for a new password (an invitation's first sign-in) or an app's code. */
export const signInWithPassword = async (email: string, password: string): Promise<SignInStep> =>
  stepOf(
    await call<InitiateAuthAnswer>('InitiateAuth', {
      ClientId: clientId(),
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
    email,
  )

/** Answers a challenge of the sign-in's session (a new password, an app's code). */
const answerChallenge = async (
  session: string,
  username: string,
  challenge: 'NEW_PASSWORD_REQUIRED' | 'SOFTWARE_TOKEN_MFA',
  answer: Record<string, string>,
): Promise<SignInStep> =>
  stepOf(
    await call<InitiateAuthAnswer>('RespondToAuthChallenge', {
      ClientId: clientId(),
      ChallengeName: challenge,
      Session: session,
      ChallengeResponses: { USERNAME: username, ...answer },
    }),
    username,
  )

/** Answers NEW_PASSWORD_REQUIRED with the person's own password. */
export const setNewPassword = (session: string, username: string, newPassword: string) =>
  answerChallenge(session, username, 'NEW_PASSWORD_REQUIRED', { NEW_PASSWORD: newPassword })

/** Answers SOFTWARE_TOKEN_MFA with the authenticator app's current code. */
export const answerMfaCode = (session: string, username: string, code: string) =>
  answerChallenge(session, username, 'SOFTWARE_TOKEN_MFA', { SOFTWARE_TOKEN_MFA_CODE: code })

export const refreshTokens = async (refreshToken: string): Promise<AuthenticationResult> => {
  const answer = await call<InitiateAuthAnswer>('InitiateAuth', {
    ClientId: clientId(),
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    AuthParameters: { REFRESH_TOKEN: refreshToken },
  })
  if (!answer.AuthenticationResult) throw new CognitoError('NotAuthorizedException', 'No tokens')
  return answer.AuthenticationResult
}

/** Sends a reset code to the address (Cognito says nothing about whether it has an account). */
export const forgotPassword = (email: string) =>
  call<unknown>('ForgotPassword', { ClientId: clientId(), Username: email })

export const confirmForgotPassword = (email: string, code: string, password: string) =>
  call<unknown>('ConfirmForgotPassword', {
    ClientId: clientId(),
    Username: email,
    ConfirmationCode: code,
    Password: password,
  })

/** Revokes the refresh token (and the access tokens it issued, in Cognito). Best effort. */
export const revokeRefreshToken = (token: string) =>
  call<unknown>('RevokeToken', { ClientId: clientId(), Token: token })

/**
 * The signed-in person's own settings, with their access token (Cognito's user API: the token's
 * `aws.cognito.signin.user.admin` scope, which every USER_PASSWORD_AUTH token has).
 */
export type CognitoUser = {
  Username: string
  UserAttributes?: { Name: string; Value?: string }[]
  UserMFASettingList?: string[]
  PreferredMfaSetting?: string
}

export const getUser = (accessToken: string) =>
  call<CognitoUser>('GetUser', { AccessToken: accessToken })

export const hasAuthenticatorApp = (user: CognitoUser) =>
  (user.UserMFASettingList ?? []).includes('SOFTWARE_TOKEN_MFA')

/** A new TOTP secret for the person (base32); it counts only once a first code verifies it. */
export const associateSoftwareToken = async (accessToken: string) => {
  const answer = await call<{ SecretCode?: string }>('AssociateSoftwareToken', {
    AccessToken: accessToken,
  })
  if (!answer.SecretCode) throw new CognitoError('UnknownError', 'No secret was returned.')
  return answer.SecretCode
}

/** Verifies the secret with the app's first code. */
export const verifySoftwareToken = async (
  accessToken: string,
  code: string,
  deviceName: string,
) => {
  const answer = await call<{ Status?: string }>('VerifySoftwareToken', {
    AccessToken: accessToken,
    UserCode: code,
    FriendlyDeviceName: deviceName,
  })
  if (answer.Status !== 'SUCCESS') {
    throw new CognitoError('EnableSoftwareTokenMFAException', 'The code was not accepted.')
  }
}

/**
 * Turns the authenticator app on (and preferred) or off for sign-in. Turning it off is allowed
 * because the pool's MFA is OPTIONAL (lib/identity.ts); with REQUIRED, Cognito would refuse.
 */
export const setAuthenticatorApp = (accessToken: string, enabled: boolean) =>
  call<unknown>('SetUserMFAPreference', {
    AccessToken: accessToken,
    SoftwareTokenMfaSettings: { Enabled: enabled, PreferredMfa: enabled },
  })

/** Six digits, spaces allowed (apps show `123 456`); undefined when it is not that. */
export const appCode = (text: string) => {
  const digits = text.replace(/\s+/g, '')
  return /^\d{6}$/.test(digits) ? digits : undefined
}

/** The otpauth URI authenticator apps read from a QR code (Google's Key Uri Format). */
export const otpauthUri = (issuer: string, account: string, secret: string) => {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}`
}

/**
 * The refusals of an authenticator-app code (at sign-in or when turning the app on): said next to
 * the code field when the code is wrong, and the way back when the sign-in's session is over.
 */
export const explainAppCodeError = (
  error: unknown,
): { field?: 'code'; message: string; restart?: boolean } => {
  if (error instanceof CognitoError) {
    switch (error.type) {
      case 'CodeMismatchException':
      case 'EnableSoftwareTokenMFAException':
        return {
          field: 'code',
          message:
            'This code is not right. Enter the 6-digit code your authenticator app shows now (codes change every 30 seconds); check the time on your phone is set automatically.',
        }
      case 'ExpiredCodeException':
        return { field: 'code', message: 'This code has expired. Enter the one the app shows now.' }
      case 'NotAuthorizedException':
        if (/session/i.test(error.message)) {
          return {
            restart: true,
            message: 'This sign-in has expired (it lasts 3 minutes). Enter your password again.',
          }
        }
    }
  }
  return { message: explainCognitoError(error).message }
}

/**
 * A sentence a person can act on, for each refusal the sign-in pages can meet: a refused sign-in
 * never says which part was wrong; a refused new password says what the policy wants.
 */
export const explainCognitoError = (error: unknown): { field?: string; message: string } => {
  if (!(error instanceof CognitoError)) {
    return { message: 'Something went wrong. Try again in a moment.' }
  }
  switch (error.type) {
    case 'NotAuthorizedException':
      if (/attempts exceeded/i.test(error.message)) {
        return { message: 'Too many failed attempts. Wait a few minutes, then try again.' }
      }
      if (/expired/i.test(error.message)) {
        return {
          field: 'password',
          message:
            'This temporary password has expired (they work for 7 days). Ask an owner of your issuer to resend the invitation.',
        }
      }
      if (/disabled/i.test(error.message)) return { message: 'This account is disabled.' }
      return { field: 'password', message: 'The e-mail address or the password is not right.' }
    case 'UserNotFoundException':
      return { field: 'password', message: 'The e-mail address or the password is not right.' }
    case 'InvalidPasswordException':
      return {
        field: 'newPassword',
        message: `This password does not meet the policy: ${error.message.replace(/^Password does not conform to policy:\s*/i, '')}`,
      }
    case 'CodeMismatchException':
      return { field: 'code', message: 'This code is not right. Check the latest e-mail.' }
    case 'ExpiredCodeException':
      return { field: 'code', message: 'This code has expired. Ask for a new one.' }
    case 'LimitExceededException':
    case 'TooManyRequestsException':
    case 'TooManyFailedAttemptsException':
      return { message: 'Too many attempts. Wait a few minutes, then try again.' }
    case 'PasswordResetRequiredException':
      return { message: 'Your password must be reset: use "Forgot your password?".' }
    case 'InvalidParameterException':
      return { message: error.message }
    case 'NetworkError':
      return { message: error.message }
    default:
      return { message: `The sign-in service refused: ${error.message}` }
  }
}
