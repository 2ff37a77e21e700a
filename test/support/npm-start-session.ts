import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Seed } from '../../local/seed'
import { adminCli, type LocalServer, mailTo, temporaryPasswordIn } from '../console/browser'
import { launchNpmStart, waitFor } from './npm-start'

/**
 * A real `npm start -- --in-memory` as a test drives it over HTTP, and the people it needs: the
 * server (its folder, address, seed and DynamoDB Local endpoint) and an access token for a member
 * invited by the operator's CLI and signed in at the Cognito emulator, as the console does.
 */
export type NpmStartSession = LocalServer & { endpoint: string }

export const startNpmStartSession = async (
  prefix: string,
  env: Record<string, string> = {},
): Promise<NpmStartSession> => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const started = launchNpmStart(dir, ['--in-memory'], env)
  await waitFor(
    () => started.output().includes('Ctrl-C stops'),
    'the ready banner',
    started,
    120_000,
  )
  const running = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    baseUrl: string
    endpoint: string
  }
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Seed
  return {
    ...started,
    dir,
    baseUrl: running.baseUrl,
    endpoint: running.endpoint,
    seed,
    stop: () => started.stop(),
  }
}

/** Cognito's JSON API at the emulator, as the console calls it. */
const cognito = async (server: LocalServer, target: string, body: unknown) => {
  const config = (await (await fetch(`${server.baseUrl}/app/config.json`)).json()) as {
    cognitoEndpoint: string
    userPoolClientId: string
  }
  const response = await fetch(config.cognitoEndpoint, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-amz-json-1.1',
      'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}`,
    },
    body: JSON.stringify({ ClientId: config.userPoolClientId, ...(body as object) }),
  })
  return (await response.json()) as {
    ChallengeName?: string
    Session?: string
    AuthenticationResult?: { AccessToken: string }
  }
}

/** A member of the seeded issuer with `role`, invited with the CLI, first sign-in done: an access token. */
export const memberToken = async (
  server: LocalServer,
  role: 'owner' | 'admin' | 'viewer' = 'admin',
): Promise<string> => {
  const email = `${role}-${randomUUID().slice(0, 8)}@example.com`
  await adminCli(server, [
    'member',
    'invite',
    '--issuer',
    server.seed.issuerId,
    '--email',
    email,
    '--role',
    role,
  ])
  const temporary = temporaryPasswordIn(await mailTo(server, email))
  const challenge = await cognito(server, 'InitiateAuth', {
    AuthFlow: 'USER_PASSWORD_AUTH',
    AuthParameters: { USERNAME: email, PASSWORD: temporary },
  })
  if (challenge.ChallengeName !== 'NEW_PASSWORD_REQUIRED') {
    throw new Error(`expected NEW_PASSWORD_REQUIRED, got ${JSON.stringify(challenge)}`)
  }
  const answer = await cognito(server, 'RespondToAuthChallenge', {
    ChallengeName: 'NEW_PASSWORD_REQUIRED',
    Session: challenge.Session,
    ChallengeResponses: { USERNAME: email, NEW_PASSWORD: 'a long passphrase for a test member' },
  })
  const token = answer.AuthenticationResult?.AccessToken
  if (!token) throw new Error(`no access token: ${JSON.stringify(answer)}`)
  return token
}

export type SessionCall = { status: number; body: Record<string, unknown> }

/** One request to the server: a Bearer token (a member) or an x-api-key (an integrator). */
export const callServer = async (
  server: LocalServer,
  auth: { token: string } | { apiKey: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<SessionCall> => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: {
      ...('token' in auth
        ? { authorization: `Bearer ${auth.token}` }
        : { 'x-api-key': auth.apiKey }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return {
    status: response.status,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
  }
}
