import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { GrantClient, GrantQueue, JsonlFileStore } from '../../client/src'
import { newIssuer, programState, startApi } from '../support/api'
import { injectFaults } from '../support/fault-injector'
import { waitFor } from '../support/npm-start'
import { dynamodb } from '../support/runtime'

const ROOT = resolve(__dirname, '../..')
let api: Awaited<ReturnType<typeof startApi>>
beforeAll(async () => {
  api = await startApi()
})
afterAll(() => api.close())

const request = (i: number) => ({
  recipient: { email: `q${i}@example.com` },
  reason: 'Queued',
  amount: 1 + (i % 4),
})

it('enqueue returns at once, delivers in the background under faults, and dead-letters what cannot succeed', async () => {
  const issuer = await newIssuer()
  const journal = join(mkdtempSync(join(tmpdir(), 'vs-queue-')), 'grants.jsonl')
  // The client's waits (its backoff, the answers' Retry-After of 1 s) are recorded, not slept:
  // what is delivered does not turn on how long it waited.
  const waits: number[] = []
  const client = new GrantClient({
    apiKey: issuer.keys.TEST,
    baseUrl: api.baseUrl,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    sleep: async (ms) => {
      waits.push(ms)
    },
  })
  const queue = new GrantQueue({ client, store: new JsonlFileStore(journal), retryPauseMs: 20 })
  await queue.start()
  const faults = injectFaults(dynamodb, { rate: 0.4, seed: 11 })
  try {
    for (let i = 0; i < 30; i++) await queue.enqueue(issuer.programs.TEST, request(i))
    await queue.enqueue(issuer.programs.TEST, { ...request(99), amount: 0 })
    // Stored durably before delivery: every enqueued grant is already in the journal.
    expect(
      readFileSync(journal, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"enqueued"')),
    ).toHaveLength(31)
    await queue.drain()
  } finally {
    faults.stop()
    await queue.stop()
  }
  expect(queue.counts()).toEqual({ pending: 0, delivered: 30, failed: 1 })
  // A 503's Retry-After was honoured over the shorter backoff.
  expect(waits.some((ms) => ms >= 1_000)).toBe(true)
  expect(queue.deadLetters()).toEqual([
    expect.objectContaining({
      request: { ...request(99), amount: 0 },
      error: expect.objectContaining({ status: 400, code: 'validation_failed' }),
    }),
  ])
  const state = await programState(issuer.programs.TEST)
  expect(state.grants).toHaveLength(30)
  expect(state.issued).toBe(
    Array.from({ length: 30 }, (_, i) => request(i).amount).reduce((a, b) => a + b, 0),
  )
})

it('survives being killed mid-delivery: after a restart every grant is delivered exactly once', async () => {
  const issuer = await newIssuer()
  const journal = join(mkdtempSync(join(tmpdir(), 'vs-queue-')), 'grants.jsonl')
  const TOTAL = 60
  // Lost responses make the killed process leave grants that were made but not recorded.
  const faults = injectFaults(dynamodb, { rate: 0.3, seed: 3, kinds: ['lost-response'] })
  // `node --import tsx`: one process, so SIGKILL really ends it (the tsx CLI would fork a child).
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/client/queue-child.ts',
      api.baseUrl,
      issuer.keys.TEST,
      issuer.programs.TEST,
      journal,
      String(TOTAL),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let output = ''
  child.stdout?.on('data', (d) => {
    output += d
  })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  try {
    // Killed as soon as it reports 10 or more delivered, mid-queue.
    await waitFor(
      () => /"delivered":(1\d|[2-9]\d)/.test(output),
      '10 deliveries',
      { child, output: () => output },
      120_000,
    )
    child.kill('SIGKILL')
    await exited
  } finally {
    faults.stop()
  }
  const before = (await programState(issuer.programs.TEST)).grants.length
  expect(before).toBeLessThan(TOTAL)

  const queue = new GrantQueue({
    client: new GrantClient({ apiKey: issuer.keys.TEST, baseUrl: api.baseUrl }),
    store: new JsonlFileStore(journal),
  })
  await queue.start()
  expect(queue.counts().pending).toBeGreaterThan(0)
  await queue.drain()
  await queue.stop()
  expect(queue.counts()).toEqual({ pending: 0, delivered: TOTAL, failed: 0 })
  const state = await programState(issuer.programs.TEST)
  expect(state.grants).toHaveLength(TOTAL)
  expect(new Set(state.grants.map((g) => g.idempotencyKey)).size).toBe(TOTAL)
  expect(state.issued).toBe(
    Array.from({ length: TOTAL }, (_, i) => request(i).amount).reduce((a, b) => a + b, 0),
  )
})
