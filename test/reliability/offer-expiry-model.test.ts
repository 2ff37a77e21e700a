import { MODEL_DEFAULTS } from '../../bench/contention/dynamodb-model'
import { runOfferExpiry, slotSpread } from '../../bench/contention/offer-expiry'
import { TIMER_SLOTS } from '../../functions/domain/offer-timers'
import { createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { config } from '../support/runtime'

/**
 * A campaign's burst, its reminders and its mass expiry in the contention model
 * (bench/contention/offer-expiry.ts): the real grant path, stream reader and sweep over DynamoDB
 * Local, with the model's partitions (1,000 write units a second each), conflicts and service
 * times, in virtual time. A small copy of the bench's run (1,000 grants:
 * `BENCH_ONLY=offer-expiry-model`).
 *
 * Why it is slow for its size: the model's clock moves only when no client is busy, a client is
 * busy during each real DynamoDB Local call, and clients seldom wake at the same virtual instant,
 * so the run's calls (about ten a grant) mostly go one at a time, at ~10 ms each. 60 grants keep
 * every check (burst, reminders, expiry, every shard and slot) at half the calls of 120.
 */
const GRANTS = 60
const endpoint = config.dynamodbEndpoint as string
const tables = tableNames('expiry-model', `-${process.pid}`)
beforeAll(async () => {
  await ensureTables(createDynamoDbClient({ endpoint }), tables)
})

describe('a mass expiry in the contention model', () => {
  it('returns every share exactly once, inside the 10 minutes, with no partition over its 1,000 units a second', async () => {
    const run = await runOfferExpiry({
      endpoint,
      tables,
      grants: GRANTS,
      clients: 16,
      ...(process.env.MODEL_PROGRESS
        ? { onProgress: (l: string) => process.stderr.write(`${l}\n`) }
        : {}),
    })
    // Exact: every grant expired with one transition, every share back in its slice, no timer left.
    expect(run.grants).toBe(GRANTS)
    expect(run.expiredGrants).toBe(GRANTS)
    expect(run.issuedAfter).toBe(0)
    expect(run.remainingAfter).toBe(run.pool)
    expect(run.timersLeft).toBe(0)
    expect(run.shards).toBe(64)
    // Every reminder marked, once.
    expect(run.reminders.done).toBe(GRANTS)
    // Inside the promise: all due at once, the sweep runs of the next minutes return them all,
    // well within 10 minutes. (A return whose shard conflicts past the store's retries fails and
    // waits for the next run; the model sees those retries without their back-off, see
    // bench/contention/offer-expiry.ts.)
    expect(run.reminders.drainedSeconds).toBeLessThan(600)
    expect(run.expiry.drainedSeconds).toBeLessThan(600)
    // No partition of any table or index over its 1,000 units a second in any phase: busiest
    // 1-second window and phase mean; nothing throttled.
    for (const phase of [run.burst, run.reminders, run.expiry]) {
      for (const units of [
        ...Object.values(phase.peakUnitsPerSecond),
        ...Object.values(phase.meanUnitsPerSecond),
      ]) {
        expect(units).toBeLessThanOrEqual(MODEL_DEFAULTS.partitionWcu)
      }
      expect(phase.throttles).toBe(0)
    }
    // The expiry wrote the shards, the grants, the timers.
    expect(Object.keys(run.expiry.peakUnitsPerSecond).sort()).toEqual(
      expect.arrayContaining(['grants', 'programs', 'timers']),
    )
  }, 900_000)

  it('spreads a 50,000-grant burst over all 32 timer slots within 10% of even', () => {
    const spread = slotSpread(50_000)
    expect(spread.mean).toBe((50_000 * 2) / TIMER_SLOTS)
    expect(spread.max).toBeLessThan(spread.mean * 1.1)
    expect(spread.min).toBeGreaterThan(spread.mean * 0.9)
  })
})
