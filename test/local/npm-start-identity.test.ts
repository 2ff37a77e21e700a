import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, readlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeJwt } from 'jose'
import {
  CognitoIdentityProvider,
  createCognitoClient,
} from '../../functions/identity/cognito-identity-provider'
import type { LocalIdentity } from '../../local/cognito-local'
import type { Mail } from '../../local/mail-sink'
import { request } from '../support/api'
import { completeFirstSignIn } from '../support/identity'
import { launchNpmStart, type Started, waitFor as waitForStart } from '../support/npm-start'
import { isAlive } from '../support/process'

/** `npm start` as a user runs it, with its embedded Cognito emulator: a child process, real HTTP. */
const launch = (localDir: string, args: string[]): Started => {
  const started = launchNpmStart(localDir, args)
  launched.push(started)
  return started
}

/** Every server a test started: one a failed test left running is stopped (Ctrl-C) after it. */
const launched: Started[] = []
afterEach(async () => {
  for (const started of launched.splice(0)) {
    if (started.child.exitCode !== null || started.child.signalCode !== null) continue
    started.child.kill('SIGINT')
    await started.exited
  }
})

const waitFor = (condition: () => boolean, what: string, started: Started) =>
  waitForStart(condition, what, started, 90_000)

const startServer = async (dir: string, args: string[] = []) => {
  const started = launch(dir, args)
  await waitFor(() => started.output().includes('Ctrl-C stops'), 'the ready banner', started)
  const identity = JSON.parse(readFileSync(join(dir, 'identity.json'), 'utf8')) as LocalIdentity
  const running = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    baseUrl: string
    cognitoPid: number
    serverPid: number
  }
  return { ...started, identity, ...running }
}

const waitUntilGone = async (pid: number) => {
  const deadline = Date.now() + 10_000
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  return !isAlive(pid)
}

const provider = (identity: LocalIdentity) =>
  new CognitoIdentityProvider(
    createCognitoClient({ endpoint: identity.endpoint }),
    identity.userPoolId,
  )

describe('npm start with the Cognito emulator', () => {
  it('--in-memory: writes identity.json, prints the pool and the mail sink, mails invitations, and Ctrl-C leaves nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-local-'))
    const server = await startServer(dir, ['--in-memory'])
    const { identity, baseUrl } = server
    expect(identity).toEqual({
      endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      userPoolId: expect.stringMatching(/^local_\w+$/),
      clientId: expect.stringMatching(/^\w+$/),
      issuer: `${identity.endpoint}/${identity.userPoolId}`,
    })
    const out = server.output()
    expect(out).toContain(`Cognito emulator on ${identity.endpoint} (in memory)`)
    expect(out).toContain(`user pool ${identity.userPoolId}   app client ${identity.clientId}`)
    expect(out).toContain(`token issuer ${identity.issuer}`)
    expect(out).toContain(`invitations and other mail: ${baseUrl}/_local/mail`)
    expect(out).toContain('Ctrl-C stops the API, DynamoDB Local and the Cognito emulator.')

    // An invitation through the emulator, as the CLI or the console's API sends it: printed, listed.
    const email = `ann-${randomUUID()}@example.com`
    const { sub } = await provider(identity).invite({ email, issuerName: 'Acme' })
    await waitFor(() => server.output().includes(`Mail to ${email}`), 'the printed mail', server)
    const mails = JSON.parse((await request(baseUrl, 'GET', '/_local/mail.json')).text) as Mail[]
    expect(mails).toEqual([expect.objectContaining({ to: email })])
    const temporary = /^Temporary password: (\S+)$/m.exec(mails[0]?.text ?? '')?.[1] as string
    expect(server.output()).toContain(`Temporary password: ${temporary}`)
    // The invitation links to the console this server serves (CONSOLE_URL overrides it).
    expect(mails[0]?.text).toContain(`http://localhost:${new URL(baseUrl).port}/app/\n`)

    // A token from it is what the server's authorizer is configured for (identity.json's issuer).
    const { tokens } = await completeFirstSignIn(email, temporary, {
      clientId: identity.clientId,
      client: createCognitoClient({ endpoint: identity.endpoint }),
    })
    const claims = decodeJwt(tokens.accessToken)
    expect(claims).toMatchObject({ iss: identity.issuer, client_id: identity.clientId, sub })

    const dataDir = readlinkSync(`/proc/${server.cognitoPid}/cwd`)
    expect(dataDir.startsWith(dir)).toBe(false)
    expect(existsSync(dataDir)).toBe(true)
    server.child.kill('SIGINT')
    expect(await server.exited).toBe(0)
    expect(await waitUntilGone(server.cognitoPid)).toBe(true)
    expect(existsSync(dataDir)).toBe(false)
    expect(existsSync(join(dir, 'identity.json'))).toBe(false)
    expect(existsSync(join(dir, 'cognito'))).toBe(false)
  })

  it('keeps the pool, its client and its people in .local/cognito across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-local-'))
    const first = await startServer(dir)
    expect(first.output()).toContain(`(data in ${join(dir, 'cognito')})`)
    expect(readlinkSync(`/proc/${first.cognitoPid}/cwd`)).toBe(join(dir, 'cognito'))
    const email = `kept-${randomUUID()}@example.com`
    const { sub } = await provider(first.identity).invite({ email, issuerName: 'Acme' })
    first.child.kill('SIGINT')
    expect(await first.exited).toBe(0)
    expect(await waitUntilGone(first.cognitoPid)).toBe(true)

    const second = await startServer(dir)
    try {
      expect(second.identity.userPoolId).toBe(first.identity.userPoolId)
      expect(second.identity.clientId).toBe(first.identity.clientId)
      expect(await provider(second.identity).status(email)).toBe('invited')
      expect(await provider(second.identity).invite({ email, issuerName: 'Acme' })).toEqual({
        sub,
        created: false,
        status: 'invited',
      })
      // The mail sink is kept with the pool.
      const mails = JSON.parse(
        (await request(second.baseUrl, 'GET', '/_local/mail.json')).text,
      ) as Mail[]
      expect(mails.map((m) => m.to)).toEqual([email])
    } finally {
      second.child.kill('SIGINT')
      await second.exited
    }
  })

  it('takes the emulator and DynamoDB Local down with it when the server is killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-local-'))
    const server = await startServer(dir, ['--in-memory'])
    const dataDir = readlinkSync(`/proc/${server.cognitoPid}/cwd`)
    const { dynamoPid } = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8'))
    process.kill(server.serverPid, 'SIGKILL')
    expect(await waitUntilGone(server.cognitoPid)).toBe(true)
    // Even then, an in-memory emulator removes its data on the way out.
    expect(existsSync(dataDir)).toBe(false)
    // DynamoDB Local's launcher sees its standard input close (local/dynamodb-local-launcher.java).
    expect(await waitUntilGone(dynamoPid)).toBe(true)
  })
})
