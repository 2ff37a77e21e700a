import { PutItemCommand } from '@aws-sdk/client-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import { DEFAULT_RETRY, isRetryable, nextRetry } from '../../client/src/grant-client'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { newId } from '../../functions/domain/ids'
import type { ProgramRecord } from '../../functions/domain/program'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import type { TableKey } from '../../functions/table-schema'
import { injectFaults, seededRandom } from '../../test/support/fault-injector'
import { Authenticator as BaselineAuthenticator } from './baseline/authenticator'
import { makeGrantTokens as makeBaselineGrantTokens } from './baseline/grant-tokens.use-case'
import { DynamoDbGrantStore as BaselineGrantStore } from './baseline/grants.dynamodb'
import type { ModelParams } from './dynamodb-model'
import {
  countGrants,
  createIssuerWithKey,
  openModel,
  percentile,
  virtualDeadline,
} from './model-setup'
import { VirtualTime } from './virtual-time'

/**
 * One program and one key under concurrent grants, in the contention model's virtual time: the
 * real use case and store code (today's, frozen in ./baseline, or the sharded one) over a real
 * DynamoDB Local, with conflicts, throttles and service times from the model.
 *
 * Each client is one Lambda instance: one request at a time, its own caches, the next request
 * as soon as the last is answered (a closed loop, no think time). Figures are virtual: requests
 * per virtual second, latencies in virtual ms (DynamoDB time only; API Gateway and Lambda add
 * theirs).
 */
export type Design = 'baseline' | 'sharded'

export type HotProgramRun = {
  design: Design
  concurrency: number
  requests: number
  created: number
  /** 409 request_conflict answers (gave up after conflicts), final: after the client's retries. */
  conflicts409: number
  /** Every 409 request_conflict the service answered, retried by the client or not. */
  conflictAnswers: number
  /** Every 503 the service answered (throttled too long), retried by the client or not. */
  unavailableAnswers: number
  /** Requests the service answered (each client attempt is one), and the most one request took. */
  attempts: number
  maxAttempts: number
  exhausted409: number
  unavailable503: number
  otherErrors: number
  /** Transactions the model cancelled for a conflict (each retried or answered 409). */
  transactionConflicts: number
  throttles: number
  grantsPerSecond: number
  p50Ms: number
  p99Ms: number
  /** DynamoDB calls per 201 (cold reads, refreshes, retries and snapshots included). */
  callsPerGrant: number
  virtualSeconds: number
  /** Exactness (pool runs): the program's issued, the grants in the table, distinct 201 ids. */
  issued?: number
  grantItems?: number
  acknowledged?: number
  pool?: number
  faults?: number
  /**
   * Pool runs: Σ amount of the grants stored and of the distinct 201s, and Σ remaining of the
   * shards (pool = issued + remainingAtEnd is the invariant).
   */
  grantedAmount?: number
  acknowledgedAmount?: number
  remainingAtEnd?: number
  /** `pool_exhausted` answers whose amount the pool, as it was left at the end, still holds. */
  wronglyRefused?: number
  /** Requests that fit the pool when they ended (amount <= what was left) and ended in 409. */
  fitting409?: number
}

export type HotProgramOptions = {
  design: Design
  concurrency: number
  requests: number
  endpoint: string
  tables: Record<TableKey, string>
  params?: ModelParams
  seed?: number
  pool?: number
  /** Injected faults (connection reset, lost response, throttle) at this rate: clients retry. */
  faultRate?: number
  /** Counter shards of the sharded program (default: what a new program gets). */
  shards?: number
  /** Retries of one grant on 503/409 request_conflict with the same Idempotency-Key. */
  clientRetries?: number
  /**
   * Request `n`'s amount (default 1: then the first `pool_exhausted` ends the run). With
   * amounts, every request is sent, and refusals are checked against what the pool has left.
   */
  amount?: (n: number) => number
  /**
   * `bundled`: each client retries as the bundled client does (client/src/grant-client.ts,
   * DEFAULT_RETRY: its attempts, backoff, Retry-After and deadline, in virtual time), instead
   * of `clientRetries`.
   */
  client?: 'bundled'
}

export const runHotProgram = async (options: HotProgramOptions): Promise<HotProgramRun> => {
  const { design, concurrency, requests, endpoint, tables } = options
  const seed = options.seed ?? 7
  const random = seededRandom(seed)
  const time = new VirtualTime()
  const model = openModel({ endpoint, tables, time, params: options.params, random })
  const { raw, stats, client, setupClient, admin } = model

  // Set-up outside the model: issuer, key, program (sharded by the admin use case; today's
  // design gets the pre-shard program item, its one counter).
  const { issuerId, secret } = await createIssuerWithKey(model, tables, {
    name: `hot ${design} ${concurrency}`,
    mode: 'TEST',
  })
  let programId: string
  if (design === 'sharded') {
    const program = await admin.createProgram({
      issuer: issuerId,
      mode: 'TEST',
      name: 'hot',
      ...(options.pool === undefined ? {} : { pool: options.pool }),
      ...(options.shards === undefined ? {} : { shards: options.shards }),
    })
    programId = program.programId
  } else {
    programId = newId('program')
    const head: ProgramRecord = {
      programId,
      issuerId,
      mode: 'TEST',
      name: 'hot',
      status: 'active',
      issued: 0,
      ...(options.pool === undefined ? {} : { pool: options.pool, remaining: options.pool }),
      createdAt: new Date().toISOString(),
    }
    await raw.send(new PutItemCommand({ TableName: tables.programs, Item: marshall(head) }))
  }
  model.resetCalls()
  // Faults only on the grant path, never on the set-up above.
  const faults =
    options.faultRate === undefined
      ? undefined
      : injectFaults(raw, { rate: options.faultRate, seed: seed + 1 })

  const epoch = Date.now()
  const clock = () => epoch + time.now()
  const grantTables = { apiKeys: tables.apiKeys, programs: tables.programs, grants: tables.grants }
  const makeInstance = () => {
    if (design === 'sharded') {
      const store = new DynamoDbGrantStore(client, grantTables)
      return makeGrantTokens({
        store,
        access: new AccessCache(store, { now: time.now }),
        clock,
        sleep: time.sleep,
        random,
      })
    }
    const store = new BaselineGrantStore(client, grantTables)
    return makeBaselineGrantTokens({
      store,
      authenticator: new BaselineAuthenticator(store),
      clock,
      sleep: time.sleep,
      random,
    })
  }

  const latencies: number[] = []
  const counts = {
    created: 0,
    conflicts409: 0,
    conflictAnswers: 0,
    unavailableAnswers: 0,
    attempts: 0,
    maxAttempts: 0,
    exhausted409: 0,
    unavailable503: 0,
    other: 0,
  }
  const acknowledged = new Map<string, number>()
  // Requests that ended in a refusal or a 409, by amount: checked against the pool's end state.
  const refused: number[] = []
  const ended409: number[] = []
  let issuedRequests = 0
  let exhausted = false
  const mixed = options.amount !== undefined
  const retries = options.clientRetries ?? (options.faultRate === undefined ? 0 : 30)
  /** The next attempt's wait, or undefined to give up, as the integrator's client decides. */
  const retryAfter = (error: unknown, attempt: number, elapsedMs: number) => {
    const domain = error as { status?: unknown; code?: string; retryAfterSeconds?: number }
    // A fault below the use case becomes a 503 with Retry-After at the HTTP layer.
    const status = typeof domain.status === 'number' ? domain.status : 503
    const code = typeof domain.status === 'number' ? (domain.code ?? '') : 'service_unavailable'
    if (options.client === 'bundled') {
      const retryAfterSeconds = typeof domain.status === 'number' ? domain.retryAfterSeconds : 1
      const next = nextRetry(
        DEFAULT_RETRY,
        {
          attempt: attempt + 1,
          elapsedMs,
          retryable: isRetryable(status, code),
          ...(retryAfterSeconds === undefined ? {} : { retryAfterMs: retryAfterSeconds * 1000 }),
        },
        random,
      )
      return 'waitMs' in next ? next.waitMs : undefined
    }
    const retryable = code === 'request_conflict' || code === 'service_unavailable'
    return retryable && attempt < retries ? 50 + random() * 100 : undefined
  }
  const instance = async () => {
    const grant = makeInstance()
    while (issuedRequests < requests && !exhausted) {
      const n = issuedRequests++
      const idempotencyKey = `hot-${seed}-${n}`
      const amount = options.amount?.(n) ?? 1
      const started = time.now()
      for (let attempt = 0; ; attempt++) {
        counts.attempts++
        counts.maxAttempts = Math.max(counts.maxAttempts, attempt + 1)
        try {
          const { grant: made } = await grant({
            apiKey: secret,
            programId,
            idempotencyKey,
            body: { recipient: { email: `r${n}@example.com` }, reason: 'Launch', amount },
            deadline: virtualDeadline(time),
          })
          counts.created++
          acknowledged.set(made.grantId, made.amount)
          break
        } catch (error) {
          const code = (error as { code?: string }).code
          if (code === 'request_conflict') counts.conflictAnswers++
          if (code === 'service_unavailable') counts.unavailableAnswers++
          if (code === 'pool_exhausted') {
            counts.exhausted409++
            refused.push(amount)
            // One share at a time: the first refusal means the pool is spent.
            if (!mixed) exhausted = true
            break
          }
          // What the integrator sees as 409 request_conflict or 503 is retried with the same
          // Idempotency-Key, as its client decides.
          const wait = retryAfter(error, attempt, time.now() - started)
          if (wait !== undefined) {
            await time.sleep(wait)
            continue
          }
          if (code === 'request_conflict') {
            counts.conflicts409++
            ended409.push(amount)
          } else if (code === 'service_unavailable') counts.unavailable503++
          else {
            counts.other++
          }
          break
        }
      }
      latencies.push(time.now() - started)
    }
  }
  await time.run(Array.from({ length: concurrency }, () => instance))
  const virtualSeconds = time.now() / 1000
  latencies.sort((a, b) => a - b)
  const calls = Object.values(stats.calls).reduce((a, b) => a + b, 0)
  const run: HotProgramRun = {
    design,
    concurrency,
    requests: latencies.length,
    created: counts.created,
    conflicts409: counts.conflicts409,
    conflictAnswers: counts.conflictAnswers,
    unavailableAnswers: counts.unavailableAnswers,
    attempts: counts.attempts,
    maxAttempts: counts.maxAttempts,
    exhausted409: counts.exhausted409,
    unavailable503: counts.unavailable503,
    otherErrors: counts.other,
    transactionConflicts: stats.transactionConflicts,
    throttles: stats.throttles,
    grantsPerSecond: counts.created / virtualSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    callsPerGrant: counts.created === 0 ? 0 : calls / counts.created,
    virtualSeconds,
    ...(faults === undefined
      ? {}
      : { faults: faults.stats.before + faults.stats['lost-response'] + faults.stats.throttle }),
  }
  if (options.pool !== undefined) {
    const reader = new DynamoDbGrantStore(setupClient, grantTables)
    const program = await reader.findProgram(programId)
    run.pool = options.pool
    run.issued = program?.issued ?? 0
    run.acknowledged = acknowledged.size
    const stored = await countGrants(setupClient, tables.grants, programId)
    run.grantItems = stored.count
    run.grantedAmount = stored.amount
    run.acknowledgedAmount = [...acknowledged.values()].reduce((a, b) => a + b, 0)
    // What the slices still hold, read from the shards themselves (the invariant's other side).
    const slices =
      program?.shards === undefined
        ? [{ remaining: options.pool - run.issued }]
        : await reader.readShards(programId, program.shards)
    const left = slices.reduce((sum, shard) => sum + (shard.remaining ?? 0), 0)
    run.remainingAtEnd = left
    // The pool only shrinks: a refusal was right only if its amount exceeds even what is left now.
    run.wronglyRefused = refused.filter((amount) => amount <= left).length
    run.fitting409 = ended409.filter((amount) => amount <= left).length
  }
  raw.destroy()
  return run
}
