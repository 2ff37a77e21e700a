import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Seed } from '../../local/seed'
// A type only: nothing of the browser helpers (Playwright) is loaded here.
import type { LocalServer } from '../console/browser'
import { acceptInvitation } from './cognito-call'
import { invitedMember } from './local-operator'
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

/** A member of the seeded issuer with `role`, invited with the CLI, first sign-in done: an access token. */
export const memberToken = async (
  server: LocalServer,
  role: 'owner' | 'admin' | 'viewer' = 'admin',
): Promise<string> =>
  acceptInvitation(server, await invitedMember(server, role), 'a long passphrase for a test member')

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
