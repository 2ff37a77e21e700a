import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, readlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb'
import { decodeJwt } from 'jose'
import { generateApiKey, type Mode } from '../../functions/domain/api-key'
import { requestLogPartition } from '../../functions/domain/request-log'
import {
  CognitoIdentityProvider,
  createCognitoClient,
} from '../../functions/identity/cognito-identity-provider'
import type { LocalIdentity } from '../../local/cognito-local'
import { LOCAL_TABLES } from '../../local/local-env'
import type { Mail } from '../../local/mail-sink'
import type { Seed } from '../../local/seed'
import { grantBody, postGrant, request } from '../support/api'
import { completeFirstSignIn } from '../support/identity'
import { launchNpmStart, type Started, waitFor as waitForStart } from '../support/npm-start'
import { drainNpmStart } from '../support/pipeline'
import { gone, isAlive } from '../support/process'
import { runSmokeHere, spawnSmoke } from '../support/smoke-run'
import { exchange, openRaw, sleep } from './raw-client'

/**
 * `npm start` as a user runs it, a child process over real HTTP, for what only a real process
 * shows: start-up and seed, the embedded Cognito emulator (identity), surviving broken clients,
 * and what Ctrl-C, a restart and SIGKILL leave behind. One `--in-memory` server serves the first
 * group and is stopped with Ctrl-C; a kept one is restarted, and the restarted one is killed
 * with SIGKILL. The server runs under node with tsx's loader (test/support/npm-start.ts), not
 * tsx's CLI: the CLI
 * relays Ctrl-C only if the server does not confirm it within 30 ms, and otherwise kills it with
 * SIGKILL and exits 130, which a busy machine made happen. What the server does with each
 * request is tested in process (test/support/api.ts startApi, hostile-clients.test.ts).
 */
type Running = { baseUrl: string; dynamoPid: number; cognitoPid: number; serverPid: number }

const waitFor = (condition: () => boolean, what: string, started: Started) =>
  waitForStart(condition, what, started, 90_000)

const startServer = async (dir: string, args: string[] = []) => {
  const started = launchNpmStart(dir, args)
  await waitFor(() => started.output().includes('Ctrl-C stops'), 'the ready banner', started)
  const seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Seed
  const identity = JSON.parse(readFileSync(join(dir, 'identity.json'), 'utf8')) as LocalIdentity
  const running = JSON.parse(
    readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8'),
  ) as Running & { endpoint: string }
  return { ...started, dir, seed, identity, ...running }
}

/** Ctrl-C: resolves to the exit code. */
const stop = async (started: Started) => {
  started.child.kill('SIGINT')
  return started.exited
}

/** No deadline of its own: that it goes is the point, not how soon (test/support/process.ts). */
const waitUntilGone = gone

const provider = (identity: LocalIdentity) =>
  new CognitoIdentityProvider(
    createCognitoClient({ endpoint: identity.endpoint }),
    identity.userPoolId,
  )

describe('npm start --in-memory', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  /** The emulator's data folder, read while it runs: Ctrl-C must remove it. */
  let cognitoData: string
  beforeAll(async () => {
    server = await startServer(mkdtempSync(join(tmpdir(), 'vs-local-')), ['--in-memory'])
    cognitoData = readlinkSync(`/proc/${server.cognitoPid}/cwd`)
  }, 180_000)

  it('with the Cognito emulator: writes identity.json, prints the pool and the mail sink, mails invitations', async () => {
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
    // The first test: no grant has mailed anyone yet.
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
  })

  /**
   * The reported crash, reproduced against the process itself: a client sends `Content-Length:
   * 200` with a 78-byte body and gives up after a second (`curl -m 1`). The server used to die of
   * an uncaught ECONNRESET and leave DynamoDB Local running. It must stay up and keep serving.
   */
  describe('survives broken clients', () => {
    const port = () => Number(new URL(server.seed.baseUrl).port)
    /** The process is alive (by its handle and by its pid), and a normal grant is made. */
    const expectServing = async () => {
      await sleep(300)
      expect(server.child.exitCode).toBeNull()
      expect(isAlive(server.serverPid)).toBe(true)
      const call = await postGrant(
        server.seed.baseUrl,
        server.seed.programs.TEST,
        server.seed.keys.TEST,
      )
      expect(call.status).toBe(201)
      expect(server.output()).not.toMatch(/error:|ECONNRESET|Uncaught|\n\s+at /)
    }
    const BODY = JSON.stringify(grantBody())
    const curlHead = (contentLength: number) =>
      [
        `POST /programs/${server.seed.programs.TEST}/grant-tokens HTTP/1.1`,
        `Host: 127.0.0.1:${port()}`,
        'User-Agent: curl/8.5.0',
        'Accept: */*',
        `x-api-key: ${server.seed.keys.TEST}`,
        'Content-Type: application/json',
        `Content-Length: ${contentLength}`,
        '',
        '',
      ].join('\r\n')

    it('the reproduction: Content-Length 200, a 78-byte body, the client gives up after 1 s', async () => {
      expect(Buffer.byteLength(BODY)).toBe(78)
      const client = await openRaw(port())
      await client.write(curlHead(200) + BODY)
      await sleep(1_000)
      client.end()
      expect((await client.closed).text).toBe('')
      await expectServing()
    })

    it('the same, with a reset instead of a close, and mid-headers', async () => {
      const mid = await openRaw(port())
      await mid.write(curlHead(200) + BODY)
      await sleep(200)
      mid.reset()
      await mid.closed
      const headers = await openRaw(port())
      await headers.write(curlHead(200).slice(0, 60))
      await sleep(200)
      headers.reset()
      await headers.closed
      await expectServing()
    })

    it('broken Content-Length and Content-Length with Transfer-Encoding: 400, and it keeps serving', async () => {
      for (const raw of [
        curlHead(78).replace('Content-Length: 78', 'Content-Length: -1') + BODY,
        curlHead(78).replace('Content-Length: 78', 'Content-Length: 78\r\nContent-Length: 79') +
          BODY,
        curlHead(78).replace(
          'Content-Length: 78',
          'Content-Length: 78\r\nTransfer-Encoding: chunked',
        ) + BODY,
      ]) {
        const answer = await exchange(port(), raw)
        expect({ status: answer.status, body: answer.body }).toEqual({
          status: 400,
          body: JSON.stringify({ message: 'Bad Request' }),
        })
      }
      await expectServing()
    })
  })

  it('seeds, prints a working curl, and serves grants', async () => {
    const { seed } = server
    expect(seed).toEqual({
      baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      issuerId: expect.stringMatching(/^iss_/),
      programs: { TEST: expect.stringMatching(/^prg_/), LIVE: expect.stringMatching(/^prg_/) },
      keys: { TEST: expect.stringMatching(/^vs_test_/), LIVE: expect.stringMatching(/^vs_live_/) },
    })
    expect(server.output()).toContain(
      `curl -i -X POST ${seed.baseUrl}/programs/${seed.programs.TEST}/grant-tokens`,
    )
    expect(server.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const requestIds: [Mode, string][] = []
    for (const mode of ['TEST', 'LIVE'] as const) {
      const call = await postGrant(seed.baseUrl, seed.programs[mode], seed.keys[mode])
      expect(call.status).toBe(201)
      expect(call.body.mode).toBe(mode)
      requestIds.push([mode, call.headers.get('request-id') as string])
    }
    // The request log (issue 33): a drain writes what the flusher holds, so both are there now.
    await drainNpmStart(seed.baseUrl)
    const client = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint: server.endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    )
    try {
      for (const [mode, requestId] of requestIds) {
        const { Item } = await client.send(
          new GetCommand({
            TableName: LOCAL_TABLES.requests,
            Key: { pk: requestLogPartition(seed.issuerId, mode, requestId), sk: requestId },
            ConsistentRead: true,
          }),
        )
        expect(Item).toMatchObject({ requestId, mode, status: 201, issuerId: seed.issuerId })
      }
    } finally {
      client.destroy()
    }
  })

  /**
   * `npm run smoke` (issue 30) in this process against the seeded TEST program and key, as a user
   * runs it after a deploy; the binary is spawned once, against this server stopped (below).
   */
  describe('npm run smoke', () => {
    const smokeArgs = (key: string) => [
      '--api',
      server.seed.baseUrl,
      '--key',
      key,
      '--program',
      server.seed.programs.TEST,
    ]
    const STEPS = [
      ...['grant', 'replay', 'read', 'accept', 'history', 'balance'],
      ...['pool', 'grant-2', 'pool-held', 'cancel', 'pool-back', 'wrong-key', 'console'],
    ]
    const readAs = async (mode: 'TEST' | 'LIVE', path: string) =>
      (await request(server.seed.baseUrl, 'GET', path, {
        headers: { 'x-api-key': server.seed.keys[mode] },
      })) as { status: number; body: Record<string, unknown> }

    it('passes: one line per step with its latency, and it changed TEST data only', async () => {
      const { seed } = server
      const live = await readAs('LIVE', `/programs/${seed.programs.LIVE}`)
      const result = await runSmokeHere([
        ...smokeArgs(seed.keys.TEST),
        ...['--console', `${seed.baseUrl}/app/`],
      ])
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' })
      const lines = result.stdout.trimEnd().split('\n')
      expect(lines.map((line) => /^ok +(\S+) +\d+ ms {2}\S/.exec(line)?.[1] ?? line)).toEqual([
        ...STEPS,
        expect.stringMatching(
          /^smoke passed: 13 steps in \d+ ms against http:\/\/127\.0\.0\.1:\d+$/,
        ),
      ])
      // Its two grants, read by another route: TEST, to its own addresses, one accepted, one canceled.
      const made = [
        ...result.stdout.matchAll(/ (gr_[0-9a-z]{26}) to (smoke\+[0-9a-f]{12}@example\.com)$/gm),
      ]
      expect(made).toHaveLength(2)
      const states = []
      for (const [, id, email] of made) {
        const grant = await readAs('TEST', `/programs/${seed.programs.TEST}/grants/${id}`)
        expect(grant.body).toMatchObject({ mode: 'TEST', amount: 1, recipient: { email } })
        states.push(grant.body.status)
      }
      expect(states).toEqual(['accepted', 'canceled'])
      expect((await readAs('LIVE', `/programs/${seed.programs.LIVE}`)).body).toEqual(live.body)
    })

    it('fails with one clear line when --key is not a key of the stage', async () => {
      const result = await runSmokeHere(smokeArgs(generateApiKey('TEST')))
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(
        /^FAIL {2}grant +\d+ ms {2}401 invalid_api_key: .+ Is --key a key of this stage\? \(request [\w-]+\)\n$/,
      )
    })
  })

  it('Ctrl-C stops it cleanly: DynamoDB Local, the emulator and its data, and the files it wrote', async () => {
    const { dir } = server
    expect(cognitoData.startsWith(dir)).toBe(false)
    expect(existsSync(cognitoData)).toBe(true)
    expect(await stop(server)).toBe(0)
    expect(isAlive(server.dynamoPid)).toBe(false)
    expect(existsSync(join(dir, 'dynamodb-endpoint.json'))).toBe(false)
    expect(await waitUntilGone(server.cognitoPid)).toBe(true)
    expect(existsSync(cognitoData)).toBe(false)
    expect(existsSync(join(dir, 'identity.json'))).toBe(false)
    expect(existsSync(join(dir, 'cognito'))).toBe(false)
  })

  it('npm run smoke, the binary, fails with one clear line against the stopped server: exit 2', async () => {
    const { seed } = server
    expect(server.child.exitCode).toBe(0)
    const result = await spawnSmoke([
      ...['--api', seed.baseUrl, '--key', seed.keys.TEST, '--program', seed.programs.TEST],
    ])
    const hostPort = new URL(seed.baseUrl).host
    // The step's latency is whatever it was.
    expect({
      ...result,
      stderr: result.stderr.replace(/^(FAIL {2}grant) +\d+ ms {2}/, '$1 … '),
    }).toEqual({
      code: 2,
      stdout: '',
      stderr: `FAIL  grant … no answer from ${seed.baseUrl}: fetch failed: connect ECONNREFUSED ${hostPort}\n`,
    })
  })
})

describe('npm start, its data kept', () => {
  /** The restarted server: killed with SIGKILL by the second test (stopped after the file if not). */
  let second: Awaited<ReturnType<typeof startServer>> | undefined

  it('keeps grants, the seed, the pool, its client, its people and its mail across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-local-'))
    const first = await startServer(dir)
    expect(first.output()).toContain(`(data in ${join(dir, 'cognito')})`)
    expect(readlinkSync(`/proc/${first.cognitoPid}/cwd`)).toBe(join(dir, 'cognito'))
    const created = await postGrant(
      first.seed.baseUrl,
      first.seed.programs.LIVE,
      first.seed.keys.LIVE,
      grantBody({ amount: 9 }),
    )
    expect(created.status).toBe(201)
    const email = `kept-${randomUUID()}@example.com`
    const { sub } = await provider(first.identity).invite({ email, issuerName: 'Acme' })
    expect(await stop(first)).toBe(0)
    expect(await waitUntilGone(first.cognitoPid)).toBe(true)

    second = await startServer(dir)
    expect(second.seed.keys).toEqual(first.seed.keys)
    const fetched = await request(
      second.seed.baseUrl,
      'GET',
      created.headers.get('location') as string,
      { headers: { 'x-api-key': second.seed.keys.LIVE } },
    )
    expect(fetched.status).toBe(200)
    // The 201's resource, and the grant's life since (issue 19). The offer mail of this LIVE
    // grant may have been handed over by then (npm start's pipeline): delivery and history
    // follow it.
    expect(fetched.body).toMatchObject({ ...created.body, rejectionReason: null })
    expect(fetched.body.expiresAt).toEqual(expect.any(String))

    expect(second.identity.userPoolId).toBe(first.identity.userPoolId)
    expect(second.identity.clientId).toBe(first.identity.clientId)
    expect(await provider(second.identity).status(email)).toBe('invited')
    expect(await provider(second.identity).invite({ email, issuerName: 'Acme' })).toEqual({
      sub,
      created: false,
      status: 'invited',
    })
    // The mail sink is kept with the pool (the LIVE grant's offer mail went there too).
    const mails = JSON.parse(
      (await request(second.baseUrl, 'GET', '/_local/mail.json')).text,
    ) as Mail[]
    expect(mails.map((m) => m.to).filter((to) => to !== 'ann@example.com')).toEqual([email])
  })

  /**
   * On the restarted server rather than one more start. That an in-memory emulator removes its
   * data even then (its parent killed with SIGKILL) is test/local/test-processes.test.ts's, on the
   * run's emulator when jest is killed.
   */
  it('takes the emulator and DynamoDB Local down with it when the server is killed with SIGKILL', async () => {
    const server = second as NonNullable<typeof second>
    expect(server).toBeDefined()
    process.kill(server.serverPid, 'SIGKILL')
    expect(await waitUntilGone(server.cognitoPid)).toBe(true)
    // DynamoDB Local's launcher sees its standard input close (local/dynamodb-local-launcher.java).
    expect(await waitUntilGone(server.dynamoPid)).toBe(true)
    // Kept data stays kept.
    expect(existsSync(join(server.dir, 'cognito'))).toBe(true)
  })
})

describe('npm start, stopped otherwise', () => {
  it('explains a port already in use in one line', async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    const port = (blocker.address() as { port: number }).port
    try {
      const started = launchNpmStart(mkdtempSync(join(tmpdir(), 'vs-local-')), ['--in-memory'], {
        PORT: String(port),
      })
      expect(await started.exited).toBe(1)
      const lines = started
        .output()
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('error:'))
      expect(lines).toEqual([
        `error: port ${port} on 127.0.0.1 is already in use. Stop whatever uses it or choose another: PORT=3001 npm start`,
      ])
      expect(started.output()).not.toMatch(/\n\s+at /)
    } finally {
      blocker.close()
    }
  })

  it('explains missing Java in one line', async () => {
    const started = launchNpmStart(mkdtempSync(join(tmpdir(), 'vs-local-')), ['--in-memory'], {
      PATH: mkdtempSync(join(tmpdir(), 'empty-path-')),
    })
    expect(await started.exited).toBe(1)
    expect(started.output()).toMatch(
      /^error: Java 17 or newer is needed to run DynamoDB Local.*openjdk-17-jre-headless/m,
    )
    expect(started.output()).not.toMatch(/\n\s+at /)
  })
})
