import { config } from './config'

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
  let response: Response
  try {
    response = await fetch(config().cognitoEndpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}`,
      },
      body: JSON.stringify(body),
      cache: 'no-store',
    })
  } catch {
    throw new CognitoError(
      'NetworkError',
      'The sign-in service could not be reached. Check your connection and try again.',
    )
  }
  const text = await response.text()
  let data: Record<string, unknown> = {}
  try {
    data = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>)
  } catch {
    // Not JSON: answered below by status.
  }
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

/** Signs in, or asks for a new password (an invitation's first sign-in). */
export const signInWithPassword = async (
  email: string,
  password: string,
): Promise<
  | { kind: 'signed-in'; result: AuthenticationResult }
  | { kind: 'new-password'; session: string; username: string }
> => {
  const answer = await call<InitiateAuthAnswer>('InitiateAuth', {
    ClientId: clientId(),
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: email, PASSWORD: password },
  })
  if (answer.AuthenticationResult) return { kind: 'signed-in', result: answer.AuthenticationResult }
  if (answer.ChallengeName === 'NEW_PASSWORD_REQUIRED') {
    return {
      kind: 'new-password',
      session: answer.Session ?? '',
      username: answer.ChallengeParameters?.USER_ID_FOR_SRP ?? email,
    }
  }
  throw new CognitoError(
    'UnsupportedChallenge',
    `This account needs a sign-in step the console does not support (${answer.ChallengeName ?? 'unknown'}).`,
  )
}

/** Answers NEW_PASSWORD_REQUIRED with the person's own password. */
export const setNewPassword = async (
  session: string,
  username: string,
  newPassword: string,
): Promise<AuthenticationResult> => {
  const answer = await call<InitiateAuthAnswer>('RespondToAuthChallenge', {
    ClientId: clientId(),
    ChallengeName: 'NEW_PASSWORD_REQUIRED',
    Session: session,
    ChallengeResponses: { USERNAME: username, NEW_PASSWORD: newPassword },
  })
  if (!answer.AuthenticationResult) {
    throw new CognitoError('UnsupportedChallenge', 'The sign-in service asked for another step.')
  }
  return answer.AuthenticationResult
}

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
