/**
 * Where cognito-local 5.3.0 differs from Cognito on the calls we make (local/cognito-local-host.ts
 * hands each call here first): the password policy, the sign-in checks, the MFA sessions and the
 * access token of the user API.
 */
import { createPublicKey } from 'node:crypto'
import { createRequire } from 'node:module'
import {
  CognitoError,
  InvalidParameterError,
  NotAuthorizedError,
  UserNotFoundError,
} from 'cognito-local/lib/errors'
import type { Clock } from 'cognito-local/lib/services/clock'
import type { CognitoService } from 'cognito-local/lib/services/cognitoService'
import type { Context } from 'cognito-local/lib/services/context'
import type { Messages } from 'cognito-local/lib/services/messages'
import { attributeValue, type UserPoolService } from 'cognito-local/lib/services/userPoolService'
import { userToResponseObject } from 'cognito-local/lib/targets/responses'
import { errors as joseErrors, jwtVerify } from 'jose'
import { generateTemporaryPassword } from '../functions/identity/cognito-identity-provider'

export type Route = (ctx: Context, req: Record<string, unknown>) => Promise<unknown>
export type Patch = (
  ctx: Context,
  req: Record<string, unknown>,
  original: Route,
) => Promise<unknown>

/** What the patches read: the emulator's services, and the issuer once the port is known. */
export type PatchDeps = {
  cognito: CognitoService
  clock: Clock
  messages: Messages
  tokenConfig: { IssuerDomain: string }
}

const policyError = (pool: UserPoolService, password: unknown) => {
  const policy = pool.options.Policies?.PasswordPolicy
  if (typeof password !== 'string' || !policy) return undefined
  const problems = [
    password.length < (policy.MinimumLength ?? 8) && 'Password not long enough',
    policy.RequireLowercase && !/[a-z]/.test(password) && 'Password must have lowercase characters',
    policy.RequireUppercase && !/[A-Z]/.test(password) && 'Password must have uppercase characters',
    policy.RequireNumbers && !/[0-9]/.test(password) && 'Password must have numeric characters',
    policy.RequireSymbols &&
      !/[\^$*.[\]{}()?"!@#%&/\\,><':;|_~`=+-]/.test(password) &&
      'Password must have symbol characters',
  ].filter(Boolean)
  return problems.length > 0
    ? new CognitoError(
        'InvalidPasswordException',
        `Password does not conform to policy: ${problems.join('; ')}`,
      )
    : undefined
}
const checkPolicy = (pool: UserPoolService, password: unknown) => {
  const error = policyError(pool, password)
  if (error) throw error
}

const poolOfClientIn = (cognito: CognitoService) => (ctx: Context, clientId: unknown) =>
  cognito.getUserPoolForClientId(ctx, String(clientId))

const isCodeMismatch = (error: unknown) =>
  error instanceof CognitoError && error.code === 'CodeMismatchException'

/**
 * cognito-local only decodes the access token of the user API (GetUser, the MFA calls): a forged
 * or expired token would do. Cognito checks it; so does this, with the emulator's own key, and
 * answers as Cognito does.
 */
const makeAccessTokenCheck = ({ cognito, tokenConfig }: PatchDeps) => {
  const poolOfClient = poolOfClientIn(cognito)
  const emulatorKey = createPublicKey({
    key: createRequire(import.meta.url)('cognito-local/lib/keys/cognitoLocal.public.json').jwk,
    format: 'jwk',
  })
  return async (ctx: Context, req: Record<string, unknown>) => {
    try {
      const { payload } = await jwtVerify(String(req.AccessToken ?? ''), emulatorKey, {
        algorithms: ['RS256'],
      })
      const pool = await poolOfClient(ctx, payload.client_id)
      if (
        payload.token_use !== 'access' ||
        payload.iss !== `${tokenConfig.IssuerDomain}/${pool.options.Id}`
      ) {
        throw new Error('not an access token of this pool')
      }
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        throw new NotAuthorizedError('Access Token has expired')
      }
      throw new NotAuthorizedError('Invalid Access Token')
    }
  }
}

/**
 * The SOFTWARE_TOKEN_MFA challenges InitiateAuth gave, by Session: cognito-local answers the
 * challenge with any Session (a code and a user name would sign in without the password) and
 * keeps no refresh token from it. As in Cognito, a Session is valid for 3 minutes (the app
 * client's AuthSessionValidity default), for its user and app client, until a code is accepted;
 * a wrong code may be corrected within it.
 */
const MFA_SESSION_MS = 3 * 60_000
const makeSignInPatches = ({ cognito, clock }: PatchDeps) => {
  const poolOfClient = poolOfClientIn(cognito)
  const mfaSessions = new Map<string, { username: string; clientId: string; until: number }>()
  const checkSignIn = async (ctx: Context, pool: UserPoolService, req: Record<string, unknown>) => {
    if (req.AuthFlow !== 'USER_PASSWORD_AUTH' && req.AuthFlow !== 'ADMIN_USER_PASSWORD_AUTH') return
    const params = (req.AuthParameters ?? {}) as Record<string, string>
    const user = await pool.getUserByUsername(ctx, String(params.USERNAME))
    if (!user) return // cognito-local refuses it itself
    if (!user.Enabled) throw new NotAuthorizedError('User is disabled.')
    // A wrong password is NotAuthorizedException in Cognito, whatever the account's state;
    // cognito-local answers a confirmed account's with InvalidPasswordException.
    if (user.Password !== params.PASSWORD) {
      throw new NotAuthorizedError('Incorrect username or password.')
    }
  }
  return {
    // cognito-local answers NEW_PASSWORD_REQUIRED whatever the password, answers a wrong password
    // of a confirmed account with InvalidPasswordException, and signs in disabled users.
    async InitiateAuth(ctx, req, original) {
      const pool = await poolOfClient(ctx, req.ClientId)
      await checkSignIn(ctx, pool, req)
      const answer = (await original(ctx, req)) as {
        ChallengeName?: string
        ChallengeParameters?: Record<string, string>
        Session?: string
      }
      if (answer.ChallengeName === 'SOFTWARE_TOKEN_MFA' && answer.Session) {
        const now = clock.get().getTime()
        for (const [session, pending] of mfaSessions) {
          if (pending.until <= now) mfaSessions.delete(session)
        }
        mfaSessions.set(answer.Session, {
          username: String(answer.ChallengeParameters?.USER_ID_FOR_SRP),
          clientId: String(req.ClientId),
          until: now + MFA_SESSION_MS,
        })
      }
      return answer
    },
    async AdminInitiateAuth(ctx, req, original) {
      const pool = await cognito.getUserPool(ctx, String(req.UserPoolId))
      await checkSignIn(ctx, pool, req)
      return original(ctx, req)
    },
    // The password policy, wherever a password is chosen (ChangePassword is not on our paths).
    // cognito-local 5.3.0 also forgets the refresh token it issues when the first password is
    // set, so a REFRESH_TOKEN_AUTH with it fails (a console reloaded right after accepting an
    // invitation would be signed out); Cognito keeps it. It is stored here.
    async RespondToAuthChallenge(ctx, req, original) {
      const responses = req.ChallengeResponses as Record<string, string> | undefined
      const pool = await poolOfClient(ctx, req.ClientId)
      if (req.ChallengeName === 'SOFTWARE_TOKEN_MFA') {
        const session = String(req.Session)
        const pending = mfaSessions.get(session)
        const user = await pool.getUserByUsername(ctx, String(responses?.USERNAME))
        if (
          !pending ||
          pending.until <= clock.get().getTime() ||
          pending.clientId !== req.ClientId ||
          user?.Username !== pending.username
        ) {
          throw new NotAuthorizedError('Invalid session for the user, session is expired.')
        }
        let answer: { AuthenticationResult?: { RefreshToken?: string } }
        try {
          answer = (await original(ctx, req)) as typeof answer
        } catch (error) {
          if (isCodeMismatch(error)) {
            throw new CognitoError('CodeMismatchException', 'Invalid code received for user')
          }
          throw error
        }
        mfaSessions.delete(session)
        const token = answer.AuthenticationResult?.RefreshToken
        if (token) await pool.storeRefreshToken(ctx, token, user)
        return answer
      }
      if (req.ChallengeName !== 'NEW_PASSWORD_REQUIRED') return original(ctx, req)
      checkPolicy(pool, responses?.NEW_PASSWORD)
      const answer = (await original(ctx, req)) as {
        AuthenticationResult?: { RefreshToken?: string }
      }
      const token = answer.AuthenticationResult?.RefreshToken
      if (token) {
        const user = await pool.getUserByUsername(ctx, String(responses?.USERNAME))
        if (user) await pool.storeRefreshToken(ctx, token, user)
      }
      return answer
    },
  } satisfies Record<string, Patch>
}

/**
 * Where cognito-local 5.3.0 differs from Cognito on the calls we make, the call is completed here
 * first, then handed to cognito-local as it is.
 */
export const makePatches = (deps: PatchDeps): Record<string, Patch> => {
  const { cognito, clock, messages } = deps
  const poolOfClient = poolOfClientIn(cognito)
  const checkAccessToken = makeAccessTokenCheck(deps)
  const withAccessToken: Patch = async (ctx, req, original) => {
    await checkAccessToken(ctx, req)
    return original(ctx, req)
  }
  const signIn = makeSignInPatches(deps)
  return {
    // RESEND is unsupported: a new temporary password and the invitation again, as Cognito does,
    // for a user who has not signed in yet. The temporary password must meet the policy.
    async AdminCreateUser(ctx, req, original) {
      const pool = await cognito.getUserPool(ctx, String(req.UserPoolId))
      checkPolicy(pool, req.TemporaryPassword)
      if (req.MessageAction !== 'RESEND') return original(ctx, req)
      const user = await pool.getUserByUsername(ctx, String(req.Username))
      if (!user) throw new UserNotFoundError('User does not exist.')
      if (user.UserStatus !== 'FORCE_CHANGE_PASSWORD') {
        throw new CognitoError(
          'UnsupportedUserStateException',
          `Resend not possible. ${user.Username} status is not FORCE_CHANGE_PASSWORD.`,
        )
      }
      const email = attributeValue('email', user.Attributes)
      if (!email) {
        throw new InvalidParameterError('User has no attribute matching desired delivery mediums')
      }
      const password =
        typeof req.TemporaryPassword === 'string'
          ? req.TemporaryPassword
          : generateTemporaryPassword()
      const updated = { ...user, Password: password, UserLastModifiedDate: clock.get() }
      await pool.saveUser(ctx, updated)
      await messages.deliver(
        ctx,
        'AdminCreateUser',
        null,
        pool.options.Id as string,
        updated,
        password,
        req.ClientMetadata as Record<string, string> | undefined,
        { AttributeName: 'email', DeliveryMedium: 'EMAIL', Destination: email },
      )
      return { User: userToResponseObject(updated) }
    },
    InitiateAuth: signIn.InitiateAuth,
    AdminInitiateAuth: signIn.AdminInitiateAuth,
    // A pool with AllowAdminCreateUserOnly refuses SignUp.
    async SignUp(ctx, req, original) {
      const pool = await poolOfClient(ctx, req.ClientId)
      if (pool.options.AdminCreateUserConfig?.AllowAdminCreateUserOnly) {
        throw new NotAuthorizedError('SignUp is not permitted for this user pool')
      }
      return original(ctx, req)
    },
    RespondToAuthChallenge: signIn.RespondToAuthChallenge,
    async AdminSetUserPassword(ctx, req, original) {
      checkPolicy(await cognito.getUserPool(ctx, String(req.UserPoolId)), req.Password)
      return original(ctx, req)
    },
    async ConfirmForgotPassword(ctx, req, original) {
      checkPolicy(await poolOfClient(ctx, req.ClientId), req.Password)
      return original(ctx, req)
    },
    GetUser: withAccessToken,
    AssociateSoftwareToken: withAccessToken,
    SetUserMFAPreference: withAccessToken,
    // A wrong first code is EnableSoftwareTokenMFAException in Cognito, not CodeMismatchException.
    async VerifySoftwareToken(ctx, req, original) {
      await checkAccessToken(ctx, req)
      try {
        return await original(ctx, req)
      } catch (error) {
        if (isCodeMismatch(error)) {
          throw new CognitoError(
            'EnableSoftwareTokenMFAException',
            'Code mismatch and fail enable Software Token MFA',
          )
        }
        throw error
      }
    },
  }
}
