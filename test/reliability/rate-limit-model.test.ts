import { IoVirtualTime } from '../../bench/contention/io-virtual-time'
import { LEASE_MODEL_DEFAULTS, leaseTable } from '../../bench/contention/rate-lease-model'
import {
  HOT,
  judgeAccuracy,
  type LimiterFactory,
  QUIET,
  runRateLimitModel,
} from '../../bench/contention/rate-limit-model'
import { idealLimiter, perInstanceLimiter } from '../../bench/contention/reference-limiters'
import { RateLimiter } from '../../functions/core/rate-limiter'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { DynamoDbRateLeases, rateItemKey } from '../../functions/stores/rate-leases.dynamodb'
import type { RateLeaseRequest } from '../../functions/stores/rate-leases.store'
import { tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { seededRandom } from '../support/fault-injector'
import { config } from '../support/runtime'

/**
 * The rate-limit model (bench/contention/rate-limit-model.ts; `BENCH_ONLY=rate-limit-model npm run
 * bench` runs it for 30 virtual seconds): its lease items against DynamoDB Local and the limits it
 * models, its window check against limiters whose answer is known, and the service's limiter held
 * to issue 33's targets in a shorter run. Virtual time: nothing here depends on the machine's speed.
 */
const endpoint = config.dynamodbEndpoint as string
const tables = tableNames('rate-model', `-${process.pid}`)
beforeAll(async () => {
  await ensureTables(createDynamoDbClient({ endpoint }), tables)
})

const fixed = (ms: number) => ({ medianMs: ms, p99Ms: ms })
const SHORT = { seconds: 12, hot: HOT, quiet: QUIET }
const EPOCH = Date.UTC(2026, 10, 29)

describe('the rate-limit model', () => {
  it("evaluates the store's conditional updates as DynamoDB Local does", async () => {
    const keyId = `ak_model${Date.now()}`
    const at = (ms: number) => EPOCH + ms
    const asks: Omit<RateLeaseRequest, 'keyId'>[] = [
      { tokens: 50, limit: 100, burst: 200, now: at(0) }, // a new item: full
      { tokens: 200, limit: 100, burst: 200, now: at(0) }, // 150 left
      { tokens: 10, limit: 100, burst: 200, now: at(5) }, // none
      { tokens: 30, limit: 100, burst: 200, now: at(250) }, // 25 back
      { tokens: 40, limit: 100, burst: 200, now: at(1_250) }, // 100 more
      { tokens: 500, limit: 100, burst: 200, now: at(60_000) }, // idle: full again
      { tokens: 7, limit: 25, burst: 50, now: at(60_001) }, // another shape on a drained item: none
    ]
    const real = new DynamoDbRateLeases(createDocumentClient(createDynamoDbClient({ endpoint })), {
      apiKeys: tables.apiKeys,
    })
    const expected = []
    for (const ask of asks) expected.push(await real.lease({ keyId, ...ask }))
    const time = new IoVirtualTime()
    const table = leaseTable({ time, random: seededRandom(3) })
    const modelled = table.storeFor()
    const answers: unknown[] = []
    await time.run([
      async () => {
        for (const ask of asks) answers.push(await modelled.lease({ keyId, ...ask }))
      },
    ])
    expect(answers).toEqual(expected)
    expect(expected.map((a) => (typeof a === 'string' ? -1 : a.granted))).toEqual([
      50, 150, 0, 25, 40, 200, 0,
    ])
  })

  it('serialises the writes to one item, 1 ms each, and refuses the ones that lost the race', async () => {
    const time = new IoVirtualTime()
    const table = leaseTable({
      time,
      random: seededRandom(1),
      params: { ...LEASE_MODEL_DEFAULTS, roundTrip: fixed(4), partitionWcu: 1_000_000 },
    })
    const store = table.storeFor()
    let granted = 0
    await time.run(
      Array.from({ length: 50 }, () => async () => {
        const answer = await store.lease({
          keyId: 'k',
          tokens: 1,
          limit: 100,
          burst: 200,
          now: EPOCH,
        })
        if (typeof answer !== 'string') granted += answer.granted
      }),
    )
    // All at the item at 2 ms: the first starts the bucket, the 49 others find it started, learn
    // its tat from the refusal and take theirs in a second round, one after another.
    expect(table.writes.slice(0, 50).map((w) => w.at)).toEqual(
      Array.from({ length: 50 }, (_, n) => 2 + n),
    )
    expect(table.writes.filter((w) => !w.applied)).toHaveLength(49)
    expect(table.writes).toHaveLength(99)
    const gaps = table.writes.slice(1).map((w, n) => w.at - (table.writes[n]?.at ?? 0))
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1)
    expect(granted).toBe(50)
    expect(table.itemOf(rateItemKey('k'))?.tat).toBe(EPOCH * 1_000 + 50 * 10_000)
  })

  it("takes at most the partition's 1,000 writes a second and answers the rest unavailable", async () => {
    const time = new IoVirtualTime()
    const table = leaseTable({ time, random: seededRandom(2) })
    const store = table.storeFor()
    let unavailable = 0
    // 4,000 leases of one item spread over 2 s: twice what its partition takes.
    await time.run(
      Array.from({ length: 4_000 }, (_, n) => async () => {
        await time.until(n / 2)
        const answer = await store.lease({
          keyId: 'k',
          tokens: 1,
          limit: 1_000_000,
          burst: 2_000_000,
          now: EPOCH + n / 2,
        })
        if (answer === 'unavailable') unavailable++
      }),
    )
    expect(table.throttles()).toBeGreaterThan(1_000)
    expect(unavailable).toBe(table.throttles())
    // 100 banked (0.1 s), then 1,000 a second.
    for (let second = 0; second < 3; second++) {
      const inSecond = table.writes.filter(
        (w) => w.at >= second * 1_000 && w.at < (second + 1) * 1_000,
      )
      expect(inSecond.length).toBeLessThanOrEqual(1_100)
    }
  })

  it('hands a lease answer that arrives while its instance is idle over at its next request', async () => {
    // One instance, requests refused at once (1 ms), each starting a lease: its answer (about 3 ms
    // later) finds the instance idle, frozen, and reaches the limiter when the next request starts.
    const watch = (freeze: boolean) => {
      const takes: number[] = []
      const answers: number[] = []
      const limiter: LimiterFactory = ({ leases, now }) => ({
        take(key) {
          takes.push(now())
          // A new item each time: one round, one answer.
          const keyId = `${key.keyId}-${takes.length}`
          void leases
            .lease({ keyId, tokens: 1, limit: 100, burst: 200, now: now() })
            .then(() => answers.push(now()))
          return { allowed: false, limit: 100, remaining: 0, resetSeconds: 1, retryAfterSeconds: 1 }
        },
        settled: async () => {},
      })
      const load = { keyId: 'ak_frozen', limit: 100, clients: 1, rate: 5 }
      return runRateLimitModel({ limiter, quiet: load, instances: 1, seconds: 6, freeze }).then(
        () => ({ takes, answers }),
      )
    }
    const frozen = await watch(true)
    expect(frozen.takes.length).toBeGreaterThan(15)
    // Each answer at the start of the request after its own (the last one's comes after the run).
    expect(frozen.answers.slice(0, frozen.takes.length - 1)).toEqual(frozen.takes.slice(1))
    const thawed = await watch(false)
    const soon = thawed.answers.map((at, n) => at - (thawed.takes[n] as number))
    expect(Math.max(...soon)).toBeLessThan(50)
  })

  it('finds an ideal limiter on the limit in every window, and a limit per instance far over it', async () => {
    const ideal = await runRateLimitModel({ ...SHORT, limiter: idealLimiter() })
    const hot = ideal.hot as NonNullable<typeof ideal.hot>
    // 400 a second asked; one bucket passes 100 a second (+1 at a window's edge), 200 more at the start.
    expect(hot.requests).toBeGreaterThan(4_400)
    expect(hot.worstWindow.admitted).toBeLessThanOrEqual(501)
    expect(hot.lowestWindow.admitted).toBeGreaterThanOrEqual(499)
    expect(hot.startWindow).toBeLessThanOrEqual(701)
    expect(judgeAccuracy(hot, ideal.windowMs).met).toBe(true)
    expect(ideal.quiet?.refused).toBe(0)
    const loose = await runRateLimitModel({ ...SHORT, limiter: perInstanceLimiter() })
    // 16 buckets of 100 a second each pass everything 400 a second ask.
    expect(loose.hot?.refused).toBe(0)
    expect(loose.hot?.worstWindow.admitted).toBeGreaterThan(1_800)
    expect(judgeAccuracy(loose.hot as NonNullable<typeof loose.hot>, loose.windowMs).met).toBe(
      false,
    )
  })

  it('holds the service limiter within 90..110% of the limit, the quiet key never refused nor slowed', async () => {
    const limiter = (deps: ConstructorParameters<typeof RateLimiter>[0]) => new RateLimiter(deps)
    const run = await runRateLimitModel({ ...SHORT, limiter })
    const hot = run.hot as NonNullable<typeof run.hot>
    const judged = judgeAccuracy(hot, run.windowMs)
    expect(hot.worstWindow.admitted).toBeLessThanOrEqual(judged.ceiling)
    expect(hot.startWindow).toBeLessThanOrEqual(judged.startCeiling)
    expect(hot.lowestWindow.admitted).toBeGreaterThanOrEqual(judged.floor)
    // Every token admitted was granted by the item, but for what the instances took on credit.
    expect(hot.granted).toBeLessThanOrEqual(hot.admitted + 2 * hot.limit)
    expect(hot.leaseWritesPeakPerSecond).toBeLessThanOrEqual(1_000)
    expect(run.throttles).toBe(0)
    const alone = await runRateLimitModel({ ...SHORT, hot: undefined, limiter })
    const quiet = run.quiet as NonNullable<typeof run.quiet>
    expect(quiet.requests).toBe(alone.quiet?.requests)
    expect(quiet.latencyMs.p99).toBeLessThanOrEqual(1.1 * (alone.quiet?.latencyMs.p99 ?? 0))
    expect(quiet.refused).toBe(0)
    expect(alone.quiet?.refused).toBe(0)
  })
})
