/**
 * A campaign's burst and its mass expiry in the contention model (bench/contention/offer-expiry.ts;
 * docs/decisions/offer-expiry.md): per-partition write units of the timers table, the grants and
 * the programs' shards while the grants are made, reminded and expired, in virtual time. Figures
 * are the model's, never DynamoDB Local's wall clock. The 50,000-grant figures are the measured
 * rates carried to that size (the rates are set by the concurrency, not the count), and the slot
 * spread of 50,000 real grant ids.
 */
import { MODEL_DEFAULTS } from '../contention/dynamodb-model'
import { type PhaseFigures, runOfferExpiry, slotSpread } from '../contention/offer-expiry'
import type { Benchmark } from '../support/benchmark'
import type { Row } from '../support/report'
import { round } from '../support/report'

const GRANTS = 1_000
const CAMPAIGN = 50_000

const busiest = (figures: Record<string, number>, prefix: string) =>
  Math.max(
    0,
    ...Object.entries(figures)
      .filter(([k]) => k.startsWith(prefix))
      .map(([, v]) => v),
  )

const describe = (p: PhaseFigures) =>
  `timers ${round(busiest(p.peakUnitsPerSecond, 'timers'), 0)}, grants ${round(busiest(p.peakUnitsPerSecond, 'grants'), 0)}, programs ${round(busiest(p.peakUnitsPerSecond, 'programs'), 0)} units/s (busiest partition, busiest second)`

export const benchmark: Benchmark = {
  title: 'a campaign and its mass expiry in the contention model (virtual time; a few minutes)',
  resultPath: ['offerExpiryModel'],
  run: async (bench) => {
    const { endpoint, tables } = await bench.dynamoDbLocal()
    const run = await runOfferExpiry({ endpoint, tables, grants: GRANTS, clients: 64 })
    const spread = slotSpread(CAMPAIGN)
    const wcu = MODEL_DEFAULTS.partitionWcu
    const underLimit = (p: PhaseFigures) =>
      Object.values(p.peakUnitsPerSecond).every((u) => u <= wcu) && p.throttles === 0
    const exact =
      run.expiredGrants === run.grants &&
      run.issuedAfter === 0 &&
      run.remainingAfter === run.pool &&
      run.timersLeft === 0
    // The first run's rate: the sweep at full concurrency (later runs only take up what failed).
    const first = run.expiry.firstRun ?? { done: 0, seconds: 1 }
    const returnsPerSecond = first.done / first.seconds
    const rows: Row[] = [
      {
        // The stream reader writes a batch's 200 timers back to back: short bursts above what the
        // model lets a partition bank (0.1 s) are throttled and retried (its BatchWriteItem
        // refused whole: pessimistic), none lost: every reminder below was found.
        metric: `model: burst of ${GRANTS} grants, 64 clients, timers by the stream reader`,
        value: `${round(run.burst.perSecond, 0)} grants/s; ${describe(run.burst)}; ${run.burst.throttles} timer batches throttled and retried`,
        target: `every partition <= ${wcu}/s, every timer written`,
        met:
          Object.values(run.burst.peakUnitsPerSecond).every((u) => u <= wcu) &&
          run.reminders.done === run.grants,
      },
      {
        metric: `model: their reminders, all due at once`,
        value: `done in ${round(run.reminders.drainedSeconds ?? 0, 1)} s; ${describe(run.reminders)}`,
        target: `<= 600 s, every partition <= ${wcu}/s`,
        met: (run.reminders.drainedSeconds ?? 0) <= 600 && underLimit(run.reminders),
      },
      {
        metric: `model: their expiry, all due at once (returns to 64 shards)`,
        value: `returned in ${round(run.expiry.drainedSeconds ?? 0, 1)} s (${run.expiry.sweeps} runs, ${run.expiry.failed} failed and retried, ${run.expiry.transactionConflicts} conflicts); ${describe(run.expiry)}; exact ${exact}`,
        target: `<= 600 s, exact, every partition <= ${wcu}/s`,
        met: (run.expiry.drainedSeconds ?? 0) <= 600 && exact && underLimit(run.expiry),
      },
      {
        metric: `model: a ${CAMPAIGN.toLocaleString('en')}-grant campaign at these rates`,
        value: `timers: ${spread.min}-${spread.max} per slot (mean ${spread.mean}); expiry at the first run's ${round(returnsPerSecond, 0)} returns/s: ${round(CAMPAIGN / returnsPerSecond, 0)} s of sweeping (runs of 50 s, one a minute)`,
        target: '<= 600 s',
        met: CAMPAIGN / returnsPerSecond <= 600,
      },
    ]
    return { rows, result: { params: MODEL_DEFAULTS, run, slotSpread: spread } }
  },
}
