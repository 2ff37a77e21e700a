/**
 * The Cognito emulator's own process, started by local/cognito-local.ts (`node --import tsx` this
 * file), never imported. It assembles cognito-local 5.3.0's server itself instead of calling its
 * `createDefaultServer`, which would read PORT and HOST (npm start's names) and write `.cognito/` in
 * the working directory:
 *
 * - every path is absolute, under the data directory it is given (`db/` for the pools, `mail.jsonl`
 *   for the mail sink), and it runs with that directory as its working directory;
 * - it listens on 127.0.0.1, on a port the system picks at `listen` (no window for another process
 *   to take it), and signs tokens with `iss` = `http://127.0.0.1:<that port>/<pool id>`;
 * - every message the pool sends goes to the mail sink, rendered by the same code as the
 *   CustomMessage trigger in AWS (functions/identity/invitation-message.ts), with the code or
 *   temporary password filled in; the parent is told over IPC, to print it;
 * - a few of the emulator's gaps on the paths we use are closed here (PATCHES below); the others
 *   are listed in the README.
 *
 * It exits when its parent goes (IPC disconnect), so it never outlives `npm start` or a test run,
 * even one killed with SIGKILL.
 */
import { createPublicKey } from 'node:crypto'
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import {
  CognitoError,
  InvalidParameterError,
  NotAuthorizedError,
  UserNotFoundError,
} from 'cognito-local/lib/errors'
import { Router } from 'cognito-local/lib/server/Router'
import { createServer } from 'cognito-local/lib/server/server'
import type { Services } from 'cognito-local/lib/services'
import { DateClock } from 'cognito-local/lib/services/clock'
import { CognitoServiceFactoryImpl } from 'cognito-local/lib/services/cognitoService'
import type { Context } from 'cognito-local/lib/services/context'
import { StormDBDataStoreFactory } from 'cognito-local/lib/services/dataStore/stormDb'
import type { Messages } from 'cognito-local/lib/services/messages'
import { otp } from 'cognito-local/lib/services/otp'
import { JwtTokenGenerator } from 'cognito-local/lib/services/tokenGenerator'
import type { Triggers } from 'cognito-local/lib/services/triggers'
import {
  attributeValue,
  type UserPoolService,
  UserPoolServiceFactoryImpl,
} from 'cognito-local/lib/services/userPoolService'
import { userToResponseObject } from 'cognito-local/lib/targets/responses'
import { errors as joseErrors, jwtVerify } from 'jose'
import type { Logger } from 'pino'
import { generateTemporaryPassword } from '../functions/identity/cognito-identity-provider'
import { issuerNamesOf, renderMessage } from '../functions/identity/invitation-message'
import { HOST_CONFIG_ENV, type HostConfig, type HostMessage } from './cognito-local'
import { guardEmulator } from './cognito-local-guard'
import { appendMail, type Mail } from './mail-sink'

const tell = (message: HostMessage) => {
  if (process.connected) process.send?.(message)
}

type Route = (ctx: Context, req: Record<string, unknown>) => Promise<unknown>
type Patch = (ctx: Context, req: Record<string, unknown>, original: Route) => Promise<unknown>

const main = async (config: HostConfig) => {
  const dbDir = join(config.dataDir, 'db')

  // cognito-local's own pino (a dependency of its, not ours), quiet: errors only, on stderr, which
  // the parent keeps for start-up failures.
  const pino = createRequire(createRequire(import.meta.url).resolve('cognito-local'))(
    'pino',
  ) as typeof import('pino')
  const logger: Logger = pino.default({ level: 'error' }, pino.default.destination(2))
  const ctx: Context = { logger }

  const clock = new DateClock()
  const stores = new StormDBDataStoreFactory(dbDir)
  const cognito = await new CognitoServiceFactoryImpl(
    dbDir,
    stores,
    new UserPoolServiceFactoryImpl(clock, stores),
  ).create(ctx, { UsernameAttributes: ['email'] })

  // No Lambda triggers: the one the stack has (CustomMessage) only writes text, which `messages`
  // below writes with the same renderer.
  const noTrigger = async () => {
    throw new Error('The local user pool has no Lambda triggers')
  }
  const triggers = {
    enabled: () => false,
    customMessage: noTrigger,
    customEmailSender: noTrigger,
    postAuthentication: noTrigger,
    postConfirmation: noTrigger,
    preSignUp: noTrigger,
    preTokenGeneration: noTrigger,
    userMigration: noTrigger,
  } as unknown as Triggers

  const messages: Messages = {
    async deliver(_ctx, source, _clientId, _userPoolId, user, code, clientMetadata, delivery) {
      const rendered = renderMessage({
        triggerSource: `CustomMessage_${source}`,
        consoleUrl: config.consoleUrl,
        usernameParameter: '{username}',
        codeParameter: '{####}',
        email: attributeValue('email', user.Attributes),
        issuerNames: issuerNamesOf(clientMetadata),
      })
      // Cognito fills the placeholders after the trigger; so does this.
      const fill = (text: string) =>
        text.replaceAll('{username}', user.Username).replaceAll('{####}', code)
      const mail: Mail = {
        to: delivery.Destination,
        // Messages the trigger leaves to Cognito (none on our paths): their gist, not Cognito's text.
        subject: rendered ? fill(rendered.subject) : `Your verification code (${source})`,
        text: rendered ? fill(rendered.text) : `Your verification code is ${code}\n`,
        sentAt: clock.get().toISOString(),
      }
      appendMail(config.mailFile, mail)
      tell({ type: 'mail', mail })
    },
  }

  // The issuer is known once the port is: tokens are only made after that.
  const tokenConfig = { IssuerDomain: 'http://127.0.0.1' }
  const services: Services = {
    clock,
    cognito,
    config: {
      LambdaClient: {},
      TriggerFunctions: {},
      UserPoolDefaults: { UsernameAttributes: ['email'] },
      ServerConfig: { hostname: '127.0.0.1', port: 0, https: false },
      TokenConfig: tokenConfig,
    },
    messages,
    otp,
    tokenGenerator: new JwtTokenGenerator(clock, triggers, tokenConfig),
    triggers,
  }

  const policyError = (pool: UserPoolService, password: unknown) => {
    const policy = pool.options.Policies?.PasswordPolicy
    if (typeof password !== 'string' || !policy) return undefined
    const problems = [
      password.length < (policy.MinimumLength ?? 8) && 'Password not long enough',
      policy.RequireLowercase &&
        !/[a-z]/.test(password) &&
        'Password must have lowercase characters',
      policy.RequireUppercase &&
        !/[A-Z]/.test(password) &&
        'Password must have uppercase characters',
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
  const poolOfClient = (ctx: Context, clientId: unknown) =>
    cognito.getUserPoolForClientId(ctx, String(clientId))

  /**
   * cognito-local only decodes the access token of the user API (GetUser, the MFA calls): a forged
   * or expired token would do. Cognito checks it; so does this, with the emulator's own key, and
   * answers as Cognito does.
   */
  const emulatorKey = createPublicKey({
    key: createRequire(import.meta.url)('cognito-local/lib/keys/cognitoLocal.public.json').jwk,
    format: 'jwk',
  })
  const checkAccessToken = async (ctx: Context, req: Record<string, unknown>) => {
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
  const withAccessToken: Patch = async (ctx, req, original) => {
    await checkAccessToken(ctx, req)
    return original(ctx, req)
  }

  /**
   * The SOFTWARE_TOKEN_MFA challenges InitiateAuth gave, by Session: cognito-local answers the
   * challenge with any Session (a code and a user name would sign in without the password) and
   * keeps no refresh token from it. As in Cognito, a Session is valid for 3 minutes (the app
   * client's AuthSessionValidity default), for its user and app client, until a code is accepted;
   * a wrong code may be corrected within it.
   */
  const MFA_SESSION_MS = 3 * 60_000
  const isCodeMismatch = (error: unknown) =>
    error instanceof CognitoError && error.code === 'CodeMismatchException'
  const mfaSessions = new Map<string, { username: string; clientId: string; until: number }>()

  /**
   * Where cognito-local 5.3.0 differs from Cognito on the calls we make, the call is completed here
   * first, then handed to cognito-local as it is.
   */
  const PATCHES: Record<string, Patch> = {
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
    // A pool with AllowAdminCreateUserOnly refuses SignUp.
    async SignUp(ctx, req, original) {
      const pool = await poolOfClient(ctx, req.ClientId)
      if (pool.options.AdminCreateUserConfig?.AllowAdminCreateUserOnly) {
        throw new NotAuthorizedError('SignUp is not permitted for this user pool')
      }
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

  const routes = Router(services)
  const router = (target: string) => {
    const original = routes(target) as Route
    const patch = PATCHES[target]
    return patch ? (c: Context, req: Record<string, unknown>) => patch(c, req, original) : original
  }

  const server = await createServer(
    router,
    logger,
    { hostname: '127.0.0.1', port: 0, https: false },
    services,
  ).start()
  const { port } = server.address() as AddressInfo
  tokenConfig.IssuerDomain = `http://127.0.0.1:${port}`
  // Loopback Host names only, and CORS for the console's origin only (not cognito-local's `*`).
  guardEmulator(server, config.corsOrigins)

  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    server.closeAllConnections?.()
    server.close()
    if (config.removeOnExit) rmSync(config.dataDir, { recursive: true, force: true })
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  // The parent is gone (ended, crashed or killed): so is the emulator.
  process.on('disconnect', stop)
  if (!process.connected) stop()
  tell({ type: 'ready', port })
}

// This module runs as its own process (local/cognito-local.ts starts it): this is its entry point,
// and its settings come in its environment, read here only.
main(JSON.parse(process.env[HOST_CONFIG_ENV] ?? '') as HostConfig).catch((error: unknown) => {
  console.error(
    `cognito-local could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  )
  process.exit(1)
})
