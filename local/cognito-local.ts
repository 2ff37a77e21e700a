import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  ListUserPoolClientsCommand,
  ListUserPoolsCommand,
} from '@aws-sdk/client-cognito-identity-provider'
import { createCognitoClient } from '../functions/identity/cognito-identity-provider'
import { PASSWORD_POLICY, TOKEN_VALIDITY } from '../functions/identity/identity-settings'
import { consoleOrigins } from './cognito-local-guard'
import { LocalSetupError } from './dynamodb-local'
import type { Mail } from './mail-sink'
import { stopChild } from './orphan-processes'

/**
 * The embedded Cognito emulator (cognito-local 5.3.0) of `npm start` and of the test run, in a
 * process of its own (local/cognito-local-host.ts), and the user pool and app client the stack has
 * (lib/identity.ts), created in it through Cognito's own API.
 */

/** What `.local/identity.json` records, and what tests get: enough to sign in and to verify. */
export type LocalIdentity = {
  /** The emulator's API: the SDK's `endpoint`. */
  endpoint: string
  userPoolId: string
  /** The console's app client (no secret). */
  clientId: string
  /** Exactly what the emulator puts in `iss`: `<endpoint>/<userPoolId>`. */
  issuer: string
}

/**
 * The pool's keys. Never the discovery document's `jwks_uri`: cognito-local writes
 * `http://localhost:9229/...` there whatever port it runs on.
 */
export const jwksUri = (identity: Pick<LocalIdentity, 'endpoint' | 'userPoolId'>) =>
  `${identity.endpoint}/${identity.userPoolId}/.well-known/jwks.json`

/** The environment variable that hands the host its configuration (see HostConfig). */
export const HOST_CONFIG_ENV = 'VS_COGNITO_HOST'

/** What the parent hands the host, as JSON in HOST_CONFIG_ENV. */
export type HostConfig = {
  dataDir: string
  mailFile: string
  /** The console's address, linked from the e-mails (already checked by parseConsoleUrl). */
  consoleUrl: string
  /** In-memory runs: the host deletes dataDir on the way out, even when its parent died first. */
  removeOnExit: boolean
  /** The browser origins the emulator answers (CORS): the console's (local/cognito-local-guard.ts). */
  corsOrigins: string[]
}

/** What the host tells its parent over IPC. */
export type HostMessage = { type: 'ready'; port: number } | { type: 'mail'; mail: Mail }

export type RunningCognito = {
  endpoint: string
  port: number
  pid: number
  /** Where the pools live (a temporary directory when started without `dataDir`). */
  dataDir: string
  /** The mail sink (local/mail-sink.ts). */
  mailFile: string
  stop(): Promise<void>
}

/**
 * Names cognito-local reads from its environment (PORT and HOST at import, CODE as every code and
 * temporary password, DEBUG and COGNITO_LOCAL_DEVMODE for logs): `npm start` uses PORT and HOST
 * for itself, so the host never sees any of them.
 */
const STRIPPED_ENV = ['PORT', 'HOST', 'CODE', 'DEBUG', 'COGNITO_LOCAL_DEVMODE', HOST_CONFIG_ENV]

/** The marker `npm start` looks for in /proc/<pid>/cmdline before it stops a leftover emulator. */
export const HOST_SCRIPT = 'cognito-local-host.ts'

/**
 * Starts the emulator. With `dataDir` its pools and the mail sink survive restarts; without, they
 * live in a temporary directory that goes with the emulator. It listens on 127.0.0.1 on a port
 * the system picks, and never outlives the calling process (the host exits when its IPC channel
 * closes). Nothing of it keeps the caller's event loop alive.
 */
export const startCognitoLocal = async (options: {
  /** The project root: where node_modules/ and local/ are. */
  root: string
  /**
   * The environment the emulator's process starts from (PATH, proxies): the caller's own, which
   * its entry point passes in. The emulator's settings are added to it, a few names taken out.
   */
  env: Readonly<Record<string, string | undefined>>
  dataDir?: string
  consoleUrl: string
  /**
   * Other addresses the console is served at (npm start's own /app/ when CONSOLE_URL names
   * another): their origins may call the emulator from a browser too. No other origin may.
   */
  otherConsoleUrls?: string[]
  /** Each message the pool sends, as it lands in the mail sink. */
  onMail?: (mail: Mail) => void
  /** The emulator's error output after start-up, line by line. */
  onLog?: (line: string) => void
  startTimeoutMs?: number
}): Promise<RunningCognito> => {
  const root = resolve(options.root)
  const temporary = options.dataDir === undefined
  const dataDir = temporary
    ? mkdtempSync(join(tmpdir(), 'vs-cognito-'))
    : resolve(options.dataDir as string)
  mkdirSync(dataDir, { recursive: true })
  const mailFile = join(dataDir, 'mail.jsonl')
  const host: HostConfig = {
    dataDir,
    mailFile,
    consoleUrl: options.consoleUrl,
    removeOnExit: temporary,
    corsOrigins: [
      ...new Set(
        [options.consoleUrl, ...(options.otherConsoleUrls ?? [])].flatMap((url) =>
          consoleOrigins(url),
        ),
      ),
    ],
  }
  const env: NodeJS.ProcessEnv = { ...options.env }
  for (const name of STRIPPED_ENV) delete env[name]
  env[HOST_CONFIG_ENV] = JSON.stringify(host)
  env.TSX_TSCONFIG_PATH = join(root, 'tsconfig.json')

  const tsx = createRequire(join(root, 'package.json')).resolve('tsx')
  const child = spawn(
    process.execPath,
    ['--import', pathToFileURL(tsx).href, join(root, 'local', HOST_SCRIPT)],
    // Its working directory is its data directory: nothing it might write lands anywhere else.
    { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  )
  let output = ''
  let started = false
  const onOutput = (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    if (!started) output = (output + text).slice(-4_000)
    else for (const line of text.split('\n')) if (line.trim()) options.onLog?.(line)
  }
  child.stdout?.on('data', onOutput)
  child.stderr?.on('data', onOutput)
  child.on('message', (message: HostMessage) => {
    if (message.type === 'mail') options.onMail?.(message.mail)
  })
  // The emulator is a helper of the caller: it must not keep the caller's process alive.
  child.unref()
  for (const stream of [child.stdout, child.stderr]) {
    ;(stream as unknown as { unref?: () => void } | null)?.unref?.()
  }
  ;(child.channel as unknown as { unref?: () => void } | undefined)?.unref?.()

  const stop = async () => {
    await stopChild(child)
    if (temporary) rmSync(dataDir, { recursive: true, force: true })
  }

  const port = await new Promise<number>((resolvePort, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer)
      child.off('message', onReady)
      child.off('exit', onExit)
      const tail = output.trim().split('\n').slice(-3).join(' | ')
      reject(new LocalSetupError(`The Cognito emulator ${why}${tail ? `: ${tail}` : ''}`))
    }
    const onReady = (message: HostMessage) => {
      if (message.type !== 'ready') return
      clearTimeout(timer)
      child.off('message', onReady)
      child.off('exit', onExit)
      resolvePort(message.port)
    }
    const onExit = (code: number | null, signal: string | null) =>
      fail(`exited during start-up (${signal ?? `code ${code}`})`)
    const timer = setTimeout(
      () => fail(`did not start within ${Math.round((options.startTimeoutMs ?? 30_000) / 1000)} s`),
      options.startTimeoutMs ?? 30_000,
    )
    child.on('message', onReady)
    child.once('exit', onExit)
    child.once('error', (error) => fail(`could not be started (${error.message})`))
  }).catch(async (error: unknown) => {
    await stop()
    throw error
  })
  started = true
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    dataDir,
    mailFile,
    stop,
  }
}

/** The pool settings of lib/identity.ts, as Cognito's API takes them. */
const poolSettings = (poolName: string) => ({
  PoolName: poolName,
  // Invitation only: operators create users; the pool refuses SignUp.
  AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
  // The e-mail address is the user name, whatever its case.
  UsernameAttributes: ['email' as const],
  UsernameConfiguration: { CaseSensitive: false },
  AutoVerifiedAttributes: ['email' as const],
  UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email' as const] },
  Schema: [{ Name: 'email', AttributeDataType: 'String' as const, Required: true, Mutable: true }],
  AccountRecoverySetting: {
    RecoveryMechanisms: [{ Name: 'verified_email' as const, Priority: 1 }],
  },
  Policies: {
    PasswordPolicy: {
      MinimumLength: PASSWORD_POLICY.minLength,
      RequireLowercase: PASSWORD_POLICY.requireLowercase,
      RequireUppercase: PASSWORD_POLICY.requireUppercase,
      RequireNumbers: PASSWORD_POLICY.requireDigits,
      RequireSymbols: PASSWORD_POLICY.requireSymbols,
      TemporaryPasswordValidityDays: PASSWORD_POLICY.temporaryPasswordValidityDays,
    },
  },
  MfaConfiguration: 'OPTIONAL' as const,
})

/** The console's app client of lib/identity.ts. */
const clientSettings = (userPoolId: string, clientName: string) => ({
  UserPoolId: userPoolId,
  ClientName: clientName,
  GenerateSecret: false,
  ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH' as const, 'ALLOW_REFRESH_TOKEN_AUTH' as const],
  AccessTokenValidity: TOKEN_VALIDITY.accessTokenMinutes,
  IdTokenValidity: TOKEN_VALIDITY.idTokenMinutes,
  RefreshTokenValidity: TOKEN_VALIDITY.refreshTokenDays,
  TokenValidityUnits: {
    AccessToken: 'minutes' as const,
    IdToken: 'minutes' as const,
    RefreshToken: 'days' as const,
  },
  PreventUserExistenceErrors: 'ENABLED' as const,
  EnableTokenRevocation: true,
  WriteAttributes: ['name'],
})

export const LOCAL_POOL_NAME = 'virtual-shares'
export const LOCAL_CLIENT_NAME = 'console'

/**
 * The pool and its app client, found by name or created: on every start, so a pool kept in
 * `.local/cognito/` is reused with its users, and a fresh one is made the same way.
 */
export const ensureUserPool = async (
  endpoint: string,
  names: { pool?: string; client?: string } = {},
): Promise<LocalIdentity> => {
  const poolName = names.pool ?? LOCAL_POOL_NAME
  const clientName = names.client ?? LOCAL_CLIENT_NAME
  const client = createCognitoClient({ endpoint })
  try {
    const pools = await client.send(new ListUserPoolsCommand({ MaxResults: 60 }))
    let userPoolId = pools.UserPools?.find((p) => p.Name === poolName)?.Id
    if (!userPoolId) {
      const created = await client.send(new CreateUserPoolCommand(poolSettings(poolName)))
      userPoolId = created.UserPool?.Id
    }
    if (!userPoolId) throw new LocalSetupError('The Cognito emulator created no user pool.')
    const clients = await client.send(
      new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }),
    )
    let clientId = clients.UserPoolClients?.find((c) => c.ClientName === clientName)?.ClientId
    if (!clientId) {
      const created = await client.send(
        new CreateUserPoolClientCommand(clientSettings(userPoolId, clientName)),
      )
      clientId = created.UserPoolClient?.ClientId
    }
    if (!clientId) throw new LocalSetupError('The Cognito emulator created no app client.')
    return { endpoint, userPoolId, clientId, issuer: `${endpoint}/${userPoolId}` }
  } finally {
    client.destroy()
  }
}

/** A second app client of a pool (tests: a token of another client of the same pool). */
export const ensureAppClient = async (endpoint: string, userPoolId: string, clientName: string) => {
  const client = createCognitoClient({ endpoint })
  try {
    const clients = await client.send(
      new ListUserPoolClientsCommand({ UserPoolId: userPoolId, MaxResults: 60 }),
    )
    const found = clients.UserPoolClients?.find((c) => c.ClientName === clientName)?.ClientId
    if (found) return found
    const created = await client.send(
      new CreateUserPoolClientCommand(clientSettings(userPoolId, clientName)),
    )
    const clientId = created.UserPoolClient?.ClientId
    if (!clientId) throw new LocalSetupError('The Cognito emulator created no app client.')
    return clientId
  } finally {
    client.destroy()
  }
}
