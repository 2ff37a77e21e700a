import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs'
import { connect } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { ListTablesCommand } from '@aws-sdk/client-dynamodb'
import { createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { startCognitoLocal } from '../../local/cognito-local'
import { consoleOrigins } from '../../local/cognito-local-guard'
import type { LocalConsoleOptions } from '../../local/dev-pages/console-site'
import { type RunningDynamoDb, startDynamoDbLocal } from '../../local/dynamodb-local'
import { appendMail } from '../../local/mail-sink'
import { expectProblem, startApi } from '../support/api'
import { makeConsoleDist } from '../support/console-dist'
import { identity, TEST_CONSOLE_URL } from '../support/identity'
import { gone, isAlive } from '../support/process'
import { exchange } from './raw-client'

/**
 * What `npm start` and the test run expose on the network: DynamoDB Local and the Cognito emulator
 * listen on 127.0.0.1 only, and refuse web pages (another Host, or any Origin).
 */
const ROOT = resolve(__dirname, '../..')

/** The machine's addresses other than loopback: what another machine on the network reaches. */
const outsideAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80'))
    .map((a) => (a as { address: string }).address)

/** Resolves to the connection's outcome: 'connected' or the error code (ECONNREFUSED...). */
const tryConnect = (host: string, port: number) =>
  new Promise<string>((done) => {
    const socket = connect({ host, port })
    socket.setTimeout(3_000, () => {
      socket.destroy()
      done('timeout')
    })
    socket.once('connect', () => {
      socket.destroy()
      done('connected')
    })
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message))
  })

const rawRequest = (port: number, headers: string[]) =>
  exchange(
    port,
    `GET / HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}Connection: close\r\n\r\n`,
  )

/** test/support/dynamodb-local-child.ts in a process of its own, with `env` added. */
const startChild = (env: Record<string, string> = {}) => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', resolve(ROOT, 'test/support/dynamodb-local-child.ts')],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  let err = ''
  child.stderr?.on('data', (chunk) => {
    err += chunk
  })
  const ready = new Promise<{ pid: number; port: number; exposed?: string }>((done, fail) => {
    child.stdout?.on('data', (chunk) => {
      out += chunk
      if (out.includes('\n')) done(JSON.parse(out.split('\n')[0] as string))
    })
    child.once('exit', (code) => fail(new Error(`the child exited (${code}) early: ${err}`)))
  })
  const stop = async () => {
    // SIGTERM lets it stop DynamoDB Local; a child that already went took it along.
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
    }
  }
  return { process: child, ready, stop }
}

describe('DynamoDB Local', () => {
  let dynamo: RunningDynamoDb
  beforeAll(async () => {
    dynamo = await startDynamoDbLocal({ root: ROOT })
  })
  afterAll(() => dynamo?.stop())

  test('runs through the loopback launcher here (nothing to warn about)', () => {
    expect(dynamo.exposed).toBeUndefined()
  })

  test('answers on 127.0.0.1 and refuses connections to every other address of the machine', async () => {
    const client = createDynamoDbClient({ endpoint: dynamo.endpoint })
    try {
      expect((await client.send(new ListTablesCommand({}))).TableNames).toBeDefined()
    } finally {
      client.destroy()
    }
    const addresses = outsideAddresses()
    if (addresses.length === 0) {
      throw new Error('This machine has no non-loopback address to test against')
    }
    for (const address of addresses) {
      expect([address, await tryConnect(address, dynamo.port)]).toEqual([address, 'ECONNREFUSED'])
    }
  })

  test('refuses a Host that is not a loopback name (DNS rebinding) and any Origin (a web page)', async () => {
    const rebound = await rawRequest(dynamo.port, [`Host: attacker.example:${dynamo.port}`])
    expect(rebound.status).toBe(403)
    const page = await rawRequest(dynamo.port, [
      `Host: 127.0.0.1:${dynamo.port}`,
      'Origin: https://attacker.example',
    ])
    expect(page.status).toBe(403)
    // The same request without those: DynamoDB Local's own answer to a bare GET.
    const plain = await rawRequest(dynamo.port, [`Host: localhost:${dynamo.port}`])
    expect(plain.status).toBe(400)
  })

  test('where the launcher cannot run (a Java runtime without jdk.compiler), starts anyway and says so in one line', async () => {
    // The java launcher reads JDK_JAVA_OPTIONS: a runtime limited to Java SE has no compiler module;
    // and a JRE has no javac, so no compiled launcher either: a PATH with `java` alone.
    const java = (process.env.PATH ?? '')
      .split(delimiter)
      .map((dir) => join(dir, 'java'))
      .find((file) => existsSync(file)) as string
    const jreOnly = mkdtempSync(join(tmpdir(), 'jre-path-'))
    symlinkSync(realpathSync(java), join(jreOnly, 'java'))
    const child = startChild({
      JDK_JAVA_OPTIONS: '--limit-modules java.se,jdk.unsupported,jdk.crypto.ec,jdk.zipfs',
      PATH: jreOnly,
    })
    try {
      const plain = await child.ready
      expect(plain.exposed).toMatch(
        /^warning: DynamoDB Local listens on every network interface, not only 127\.0\.0\.1 \(the loopback launcher could not run: .*jdk\.compiler.*\); see README, Security notes\.$/,
      )
      expect(plain.exposed).not.toContain('\n')
      const client = createDynamoDbClient({ endpoint: `http://127.0.0.1:${plain.port}` })
      try {
        expect((await client.send(new ListTablesCommand({}))).TableNames).toBeDefined()
      } finally {
        client.destroy()
      }
    } finally {
      await child.stop()
    }
  })

  test('goes when the process that started it is killed with SIGKILL', async () => {
    const child = startChild()
    try {
      const { pid, exposed } = await child.ready
      expect(exposed).toBeUndefined()
      expect(isAlive(pid)).toBe(true)
      child.process.kill('SIGKILL')
      expect(await gone(pid)).toBe(true)
    } finally {
      await child.stop()
    }
  })
})

describe('the local server’s own pages (mail sink, config.json)', () => {
  const consoleOptions: LocalConsoleOptions = {
    dir: makeConsoleDist(join(mkdtempSync(join(tmpdir(), 'loopback-only-')), 'dist')),
    identity: {
      region: 'local',
      userPoolId: 'local_pool0000',
      userPoolClientId: 'client-id-that-must-not-leak',
      cognitoEndpoint: 'http://127.0.0.1:45123/',
    },
  }
  let api: Awaited<ReturnType<typeof startApi>>
  const email = `loopback-${randomUUID()}@example.com`
  beforeAll(async () => {
    api = await startApi({ options: { console: consoleOptions } })
    // A message in the run's sink, as the emulator writes it: what a rebinding page would want.
    appendMail(identity().mailFile, {
      to: email,
      subject: 'Your temporary password',
      text: 'Temporary password: Secret-Temp-9x!\n',
      sentAt: new Date().toISOString(),
    })
  })
  afterAll(() => api?.close())

  const get = (path: string, host: string | undefined, version = '1.1') =>
    exchange(
      api.port,
      `GET ${path} HTTP/${version}\r\n${host === undefined ? '' : `Host: ${host}\r\n`}Connection: close\r\n\r\n`,
    )
  const PATHS = ['/_local/mail', '/_local/mail.json', '/app/config.json']

  test.each(PATHS)('%s answers a loopback host name, however written', async (path) => {
    const port = api.port
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LocalHost:${port}`,
      `[::1]:${port}`,
      `console.localhost:${port}`,
      'localhost',
    ]) {
      const answer = await get(path, host)
      expect([host, answer.status]).toEqual([host, 200])
    }
    const mail = await get('/_local/mail.json', `localhost:${port}`)
    expect(mail.body).toContain(email)
  })

  test.each(PATHS)(
    '%s refuses any other Host with 403 problem+json, and shows nothing',
    async (path) => {
      const port = api.port
      const lan = outsideAddresses()[0] ?? '192.0.2.2'
      for (const host of [
        `attacker.example:${port}`,
        `localhost.attacker.example:${port}`,
        `127.0.0.1.nip.io:${port}`,
        `${lan.includes(':') ? `[${lan}]` : lan}:${port}`,
        `0.0.0.0:${port}`,
        'a b',
        '',
      ]) {
        const answer = await get(path, host)
        expect([host, answer.status]).toEqual([host, 403])
        expect(answer.headers['content-type']).toBe('application/problem+json')
        expectProblem(
          { status: answer.status ?? 0, body: JSON.parse(answer.body) },
          403,
          'local-host-not-loopback',
        )
        expect(answer.body).not.toContain(email)
        expect(answer.body).not.toContain('Secret-Temp')
        expect(answer.body).not.toContain('client-id-that-must-not-leak')
      }
      // HTTP/1.0 may leave Host out: no name, no answer.
      const noHost = await get(path, undefined, '1.0')
      expect(noHost.status).toBe(403)
    },
  )
})

describe('the Cognito emulator', () => {
  const endpoint = () => new URL(identity().endpoint)
  /** AdminGetUser as a web page would send it: no credentials, which the emulator never checks. */
  const adminGetUser = (headers: Record<string, string>) =>
    fetch(identity().endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'AWSCognitoIdentityProviderService.AdminGetUser',
        ...headers,
      },
      body: JSON.stringify({ UserPoolId: identity().userPoolId, Username: 'nobody@example.com' }),
    })
  const preflight = (origin: string) =>
    fetch(identity().endpoint, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-amz-target',
      },
    })

  test('listens on 127.0.0.1 only', async () => {
    const port = Number(endpoint().port)
    expect(await tryConnect('127.0.0.1', port)).toBe('connected')
    for (const address of outsideAddresses()) {
      expect([address, await tryConnect(address, port)]).toEqual([address, 'ECONNREFUSED'])
    }
  })

  test('refuses another web page: preflight and call, with no Access-Control-Allow-Origin', async () => {
    for (const origin of ['https://attacker.example', 'http://localhost:9999', 'null']) {
      const pre = await preflight(origin)
      expect([origin, pre.status, pre.headers.get('access-control-allow-origin')]).toEqual([
        origin,
        403,
        null,
      ])
      const call = await adminGetUser({ origin })
      expect([origin, call.status, call.headers.get('access-control-allow-origin')]).toEqual([
        origin,
        403,
        null,
      ])
      expect(await call.text()).not.toContain('UserNotFound')
    }
  })

  test('answers the console’s own origin (any loopback name of its port) with that origin, never *', async () => {
    const site = new URL(TEST_CONSOLE_URL)
    for (const origin of [
      site.origin,
      `http://127.0.0.1:${site.port}`,
      `http://[::1]:${site.port}`,
    ]) {
      const pre = await preflight(origin)
      expect([origin, pre.status < 300, pre.headers.get('access-control-allow-origin')]).toEqual([
        origin,
        true,
        origin,
      ])
      const call = await adminGetUser({ origin })
      expect(call.headers.get('access-control-allow-origin')).toBe(origin)
      expect(call.headers.get('vary')).toContain('Origin')
      expect((await call.json()) as { __type?: string }).toMatchObject({
        __type: 'UserNotFoundException',
      })
    }
    // An SDK or the CLI (no Origin): answered, and no CORS header at all.
    const plain = await adminGetUser({})
    expect(plain.status).toBe(400)
    expect(plain.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('with CONSOLE_URL elsewhere, answers that console and npm start’s own /app/, nothing else', async () => {
    expect(consoleOrigins('https://console.example.com/app/')).toEqual([
      'https://console.example.com',
    ])
    const emulator = await startCognitoLocal({
      root: ROOT,
      env: process.env,
      consoleUrl: 'http://localhost:5173/',
      otherConsoleUrls: ['http://localhost:3999/app/'],
    })
    try {
      const preflightTo = (origin: string) =>
        fetch(emulator.endpoint, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST' },
        })
      for (const origin of [
        'http://localhost:5173',
        'http://127.0.0.1:5173',
        'http://localhost:3999',
        'http://[::1]:3999',
      ]) {
        const pre = await preflightTo(origin)
        expect([origin, pre.headers.get('access-control-allow-origin')]).toEqual([origin, origin])
      }
      for (const origin of ['http://localhost:3000', 'https://console.example.com']) {
        expect([origin, (await preflightTo(origin)).status]).toEqual([origin, 403])
      }
    } finally {
      await emulator.stop()
    }
  })

  test('refuses a Host that is not a loopback name (DNS rebinding)', async () => {
    const port = Number(endpoint().port)
    const answer = await exchange(
      port,
      `GET /health HTTP/1.1\r\nHost: attacker.example:${port}\r\nConnection: close\r\n\r\n`,
    )
    expect(answer.status).toBe(403)
    const ok = await exchange(
      port,
      `GET /health HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
    )
    expect(ok.status).toBe(200)
  })
})
