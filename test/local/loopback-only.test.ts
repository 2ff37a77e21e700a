import { spawn } from 'node:child_process'
import { connect } from 'node:net'
import { networkInterfaces } from 'node:os'
import { resolve } from 'node:path'
import { ListTablesCommand } from '@aws-sdk/client-dynamodb'
import { createDynamoDbClient } from '../../functions/shared/dynamodb'
import { type RunningDynamoDb, startDynamoDbLocal } from '../../local/dynamodb-local'
import { isAlive } from '../support/process'
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
    // The java launcher reads JDK_JAVA_OPTIONS: a runtime limited to Java SE has no compiler module.
    const child = startChild({
      JDK_JAVA_OPTIONS: '--limit-modules java.se,jdk.unsupported,jdk.crypto.ec,jdk.zipfs',
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
      const deadline = Date.now() + 15_000
      while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      expect(isAlive(pid)).toBe(false)
    } finally {
      await child.stop()
    }
  })
})
