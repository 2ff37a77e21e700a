import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Seed } from '../../local/seed'
import { grantBody, postGrant } from '../support/api'
import { isAlive } from '../support/process'
import { exchange, openRaw, sleep } from './raw-client'

/**
 * The reported crash, reproduced against `npm start` itself (a separate process, as a user runs
 * it): a client sends `Content-Length: 200` with a 78-byte body and gives up after a second
 * (`curl -m 1`). The server used to die of an uncaught ECONNRESET and leave DynamoDB Local
 * running. It must stay up and keep serving.
 */
const ROOT = resolve(__dirname, '../..')
const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs')

let child: ChildProcess
let output = ''
let exited: Promise<number | null>
let seed: Seed
let port: number
let pids: { serverPid: number; dynamoPid: number }

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-survives-'))
  child = spawn(process.execPath, [TSX, 'bin/local-server.ts', '--in-memory'], {
    cwd: ROOT,
    env: { ...process.env, VS_LOCAL_DIR: dir, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (d) => {
    output += d
  })
  child.stderr?.on('data', (d) => {
    output += d
  })
  exited = new Promise((r) => child.once('exit', (code) => r(code)))
  const deadline = Date.now() + 120_000
  while (!output.includes('Ctrl-C stops')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(output)
    await sleep(100)
  }
  seed = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Seed
  pids = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8'))
  port = Number(new URL(seed.baseUrl).port)
})

afterAll(async () => {
  if (child.exitCode === null) {
    child.kill('SIGINT')
    await exited
  }
})

/** The process, and the node process under tsx, are alive, and a normal grant is made. */
const expectServing = async () => {
  await sleep(300)
  expect(child.exitCode).toBeNull()
  expect(isAlive(pids.serverPid)).toBe(true)
  const call = await postGrant(seed.baseUrl, seed.programs.TEST, seed.keys.TEST)
  expect(call.status).toBe(201)
  expect(output).not.toMatch(/error:|ECONNRESET|Uncaught|\n\s+at /)
}

const BODY = JSON.stringify(grantBody())
const curlHead = (contentLength: number) =>
  [
    `POST /programs/${seed.programs.TEST}/grant-tokens HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'User-Agent: curl/8.5.0',
    'Accept: */*',
    `x-api-key: ${seed.keys.TEST}`,
    'Content-Type: application/json',
    `Content-Length: ${contentLength}`,
    '',
    '',
  ].join('\r\n')

it('the reproduction: Content-Length 200, a 78-byte body, the client gives up after 1 s', async () => {
  expect(Buffer.byteLength(BODY)).toBe(78)
  const client = await openRaw(port)
  await client.write(curlHead(200) + BODY)
  await sleep(1_000)
  client.end()
  expect((await client.closed).text).toBe('')
  await expectServing()
})

it('the same, with a reset instead of a close, and mid-headers', async () => {
  const mid = await openRaw(port)
  await mid.write(curlHead(200) + BODY)
  await sleep(200)
  mid.reset()
  await mid.closed
  const headers = await openRaw(port)
  await headers.write(curlHead(200).slice(0, 60))
  await sleep(200)
  headers.reset()
  await headers.closed
  await expectServing()
})

it('broken Content-Length and Content-Length with Transfer-Encoding: 400, and it keeps serving', async () => {
  for (const request of [
    curlHead(78).replace('Content-Length: 78', 'Content-Length: -1') + BODY,
    curlHead(78).replace('Content-Length: 78', 'Content-Length: 78\r\nContent-Length: 79') + BODY,
    curlHead(78).replace('Content-Length: 78', 'Content-Length: 78\r\nTransfer-Encoding: chunked') +
      BODY,
  ]) {
    const answer = await exchange(port, request)
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 400,
      body: JSON.stringify({ message: 'Bad Request' }),
    })
  }
  await expectServing()
})

it('Ctrl-C still stops it cleanly, DynamoDB Local included', async () => {
  child.kill('SIGINT')
  expect(await exited).toBe(0)
  expect(isAlive(pids.dynamoPid)).toBe(false)
})
