import { marshall } from '@aws-sdk/util-dynamodb'
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'
import type { Runtime } from '../../functions/composition'
import type { Config } from '../../functions/config'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantLife } from '../../functions/core/grant-life'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { makeOfferSweep, type OfferSweepReport } from '../../functions/core/offer-sweep'
import type { GrantRecord } from '../../functions/domain/grant'
import { REMINDER_BEFORE_MS } from '../../functions/domain/grant-lifecycle'
import { idempotentGrantId } from '../../functions/domain/ids'
import { TIMER_SLOTS, timerSlot } from '../../functions/domain/offer-timers'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { DynamoDbOfferTimerStore } from '../../functions/stores/offer-timers.dynamodb'
import type { TableKey } from '../../functions/table-schema'
import { makeGrantStreamHandler } from '../../functions/wiring/grant-stream.consumer'
import { seededRandom } from '../../test/support/fault-injector'
import type { ModelParams } from './dynamodb-model'
import { createIssuerWithKey, openModel, virtualDeadline } from './model-setup'
import { VirtualTime } from './virtual-time'

/**
 * A campaign and its mass expiry in the contention model (issue 19; docs/decisions/offer-expiry.md):
 * the project's real code over DynamoDB Local, with the model's partitions, conflicts and
 * service times, in virtual time.
 *
 * 1. Burst: `clients` closed-loop clients make `grants` grants of 1 share in one program (its
 *    shards, pool `pool`); the grants table's stream is read as Lambda reads it (`streamShards`
 *    readers, batches of at most 100, the real GrantStream handler), which writes each grant's two
 *    timers (BatchWriteItem) into the timers table's slots.
 * 2. Reminders: the clock jumps to when every reminder is due; OfferSweep runs once a minute (the
 *    real sweep, its concurrency, a 50 s budget) until none is left.
 * 3. Expiry: the clock jumps past every grant's window; the sweep returns every share to the
 *    shard it came from (the shard's `issued`, `remaining` and `version` ADDed in each return's
 *    transaction), each expiry racing the others on the 64 shards.
 *
 * Figures are the model's (virtual seconds, units per partition), never DynamoDB Local's wall clock.
 * The store's retry back-off (grant-life.dynamodb.ts) sleeps in real time, which virtual time does
 * not see: retried conflicts cost no virtual time here (optimistic for latency, not for counts).
 */

export type PhaseFigures = {
  /** Virtual seconds the phase took (burst: first grant to last timer written). */
  seconds: number
  /** Grants made, reminded or expired in the phase. */
  done: number
  perSecond: number
  /** Write units a second, the busiest 1-second window of the busiest partition, per table or index. */
  peakUnitsPerSecond: Record<string, number>
  /** The same, averaged over the phase, per table or index (busiest partition). */
  meanUnitsPerSecond: Record<string, number>
  transactionConflicts: number
  throttles: number
  singleConflicts: number
  /** Sweep runs (1 a minute) until one found nothing, and the timers that failed (retried later). */
  sweeps?: number
  failed?: number
  /** From everything being due to the end of the last sweep run that did any of it (virtual s). */
  drainedSeconds?: number
  /** The first sweep run: what it did and how long it took (the sweep's full rate). */
  firstRun?: { done: number; seconds: number }
}

export type OfferExpiryRun = {
  grants: number
  clients: number
  shards: number
  burst: PhaseFigures
  reminders: PhaseFigures
  expiry: PhaseFigures
  /** Exactness after the expiry: every share back (issued 0, remaining = pool), one transition each. */
  issuedAfter: number
  remainingAfter: number
  pool: number
  expiredGrants: number
  timersLeft: number
  /** Timers per slot in this run (min, max). */
  slotLoad: { min: number; max: number }
}

export type OfferExpiryOptions = {
  endpoint: string
  tables: Record<TableKey, string>
  grants: number
  clients?: number
  pool?: number
  streamShards?: number
  params?: ModelParams
  seed?: number
  /** Told every virtual 10 s where the run is (debugging a long run). */
  onProgress?: (line: string) => void
}

export const runOfferExpiry = async (options: OfferExpiryOptions): Promise<OfferExpiryRun> => {
  const { endpoint, tables } = options
  const clients = options.clients ?? 64
  const pool = options.pool ?? 50_000
  const streamShards = options.streamShards ?? 4
  const seed = options.seed ?? 19
  const random = seededRandom(seed)
  const time = new VirtualTime()
  const model = openModel({ endpoint, tables, time, params: options.params, random })
  const { raw, stats, client, setupClient, admin } = model

  // Set-up outside the model: issuer, key, program (64 shards for a pool this size).
  const { issuerId, secret } = await createIssuerWithKey(model, tables, {
    name: `expiry ${options.grants}`,
    mode: 'LIVE',
  })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode: 'LIVE',
    name: 'campaign',
    pool,
  })
  model.resetCalls()

  // The functions' wall clock: virtual time from now, plus the jumps between phases.
  const epoch = Date.now()
  let jumped = 0
  const clock = () => epoch + jumped + time.now()
  const runtime = {
    config: { tables } as unknown as Config,
    documentClient: client,
    dynamodb: raw,
    clock: { now: clock },
    monotonic: { now: time.now },
  } as unknown as Runtime

  // Per-partition units, sampled every virtual second.
  const windows: Map<string, number>[] = []
  let sampling = true
  const sampler = async () => {
    let last = new Map(stats.unitsByPartition)
    while (sampling) {
      await time.sleep(1_000)
      const now = new Map(stats.unitsByPartition)
      windows.push(new Map([...now].map(([p, u]) => [p, u - (last.get(p) ?? 0)])))
      last = now
      if (windows.length % 10 === 0) {
        options.onProgress?.(
          `${time.now() / 1000} s: made ${made.length}, pending ${pending.length}, calls ${JSON.stringify(stats.calls)}`,
        )
      }
    }
  }
  const label = (partition: string) => {
    const name = partition.replace(/#\d+$/, '')
    const [table, index] = name.split('/') as [string, string | undefined]
    const key = (Object.keys(tables) as TableKey[]).find((k) => tables[k] === table) ?? table
    return index === undefined ? key : `${key}/${index}`
  }
  const phase = async (
    work: () => Promise<{
      done: number
      sweeps?: number
      failed?: number
      drained?: number
      first?: { done: number; seconds: number }
    }>,
  ) => {
    const before = {
      at: time.now(),
      windows: windows.length,
      tx: stats.transactionConflicts,
      throttles: stats.throttles,
      single: stats.singleConflicts,
      units: new Map(stats.unitsByPartition),
    }
    const result = await work()
    const seconds = (time.now() - before.at) / 1000
    const peak: Record<string, number> = {}
    for (const window of windows.slice(before.windows)) {
      for (const [partition, units] of window) {
        const l = label(partition)
        peak[l] = Math.max(peak[l] ?? 0, units)
      }
    }
    const mean: Record<string, number> = {}
    for (const [partition, units] of stats.unitsByPartition) {
      const l = label(partition)
      const used = units - (before.units.get(partition) ?? 0)
      mean[l] = Math.max(mean[l] ?? 0, seconds > 0 ? used / seconds : 0)
    }
    return {
      seconds,
      done: result.done,
      perSecond: seconds > 0 ? result.done / seconds : 0,
      peakUnitsPerSecond: peak,
      meanUnitsPerSecond: mean,
      transactionConflicts: stats.transactionConflicts - before.tx,
      throttles: stats.throttles - before.throttles,
      singleConflicts: stats.singleConflicts - before.single,
      ...(result.sweeps === undefined ? {} : { sweeps: result.sweeps }),
      ...(result.failed === undefined ? {} : { failed: result.failed }),
      ...(result.drained === undefined ? {} : { drainedSeconds: result.drained }),
      ...(result.first === undefined ? {} : { firstRun: result.first }),
    } satisfies PhaseFigures
  }

  // 1. The burst, with the stream's readers.
  const grantStore = new DynamoDbGrantStore(client, tables)
  const made: GrantRecord[] = []
  const pending: GrantRecord[] = []
  let sequence = 0
  let issuedRequests = 0
  let making = true
  const stream = makeGrantStreamHandler(runtime, {
    offerMail: { sendBatch: async () => ({ failed: [] }) },
    webhooks: { sendBatch: async () => ({ failed: [] }) },
    sleep: time.sleep,
  })
  const reader = async () => {
    while (making || pending.length > 0) {
      const batch = pending.splice(0, 100)
      if (batch.length === 0) {
        // Lambda polls a stream shard about 4 times a second.
        await time.sleep(250)
        continue
      }
      const records = batch.map(
        (grant) =>
          ({
            eventName: 'INSERT',
            dynamodb: {
              Keys: { grantId: { S: grant.grantId } },
              SequenceNumber: String(++sequence).padStart(21, '0'),
              NewImage: marshall(grant, { removeUndefinedValues: true }),
            },
          }) as unknown as DynamoDBRecord,
      )
      for (;;) {
        const answer = await stream({ Records: records } as DynamoDBStreamEvent)
        const failed = answer.batchItemFailures[0]?.itemIdentifier
        if (failed === undefined) break
        // Lambda's retry from the failed record on.
        records.splice(
          0,
          records.findIndex((r) => r.dynamodb?.SequenceNumber === failed),
        )
        await time.sleep(1_000)
      }
    }
  }
  const maker = async () => {
    const grant = makeGrantTokens({
      store: grantStore,
      access: new AccessCache(grantStore, { now: time.now }),
      clock,
      sleep: time.sleep,
      random,
    })
    while (issuedRequests < options.grants) {
      const n = issuedRequests++
      for (let attempt = 0; ; attempt++) {
        try {
          const { grant: g } = await grant({
            apiKey: secret,
            programId: program.programId,
            idempotencyKey: `campaign-${seed}-${n}`,
            body: { recipient: { email: `c${n}@example.com` }, reason: 'Campaign', amount: 1 },
            deadline: virtualDeadline(time),
          })
          made.push(g)
          pending.push(g)
          break
        } catch (error) {
          const code = (error as { code?: string }).code
          if ((code === 'request_conflict' || code === 'service_unavailable') && attempt < 30) {
            await time.sleep(50 + random() * 100)
            continue
          }
          throw error
        }
      }
    }
  }

  const life = makeGrantLife({ store: new DynamoDbGrantLifeStore(client, tables), clock })
  const timers = new DynamoDbOfferTimerStore(client, tables)
  /** OfferSweep once a virtual minute, each run with the Lambda's budget, until a run finds nothing. */
  const sweepUntilDone = async (count: (r: OfferSweepReport) => number) => {
    let done = 0
    let sweeps = 0
    let failed = 0
    const from = time.now()
    let drained = 0
    let first = { done: 0, seconds: 0 }
    for (;;) {
      const started = time.now()
      const sweep = makeOfferSweep({
        timers,
        life,
        clock,
        remainingMs: () => 50_000 - (time.now() - started),
        lanes: (count, lane) => time.fork(Array.from({ length: count }, () => lane)),
      })
      const report = await sweep()
      options.onProgress?.(`${time.now() / 1000} s: sweep ${JSON.stringify(report)}`)
      if (sweeps === 0) first = { done: count(report), seconds: (time.now() - started) / 1000 }
      sweeps++
      done += count(report)
      failed += report.failed
      if (count(report) > 0) drained = (time.now() - from) / 1000
      if (report.read === 0 && report.complete) return { done, sweeps, failed, drained, first }
      await time.until(started + 60_000)
    }
  }

  let burst!: PhaseFigures
  let reminders!: PhaseFigures
  let expiry!: PhaseFigures
  let readersLeft = streamShards
  // One run of every lane (a nested run would count its caller busy and stop the clock).
  await time.run([
    sampler,
    ...Array.from({ length: clients }, () => maker),
    ...Array.from({ length: streamShards }, () => async () => {
      await reader()
      readersLeft--
    }),
    async () => {
      burst = await phase(async () => {
        while (made.length < options.grants) await time.sleep(50)
        // The makers are done: the stream's readers stop once they have read everything.
        making = false
        while (readersLeft > 0) await time.sleep(50)
        return { done: made.length }
      })
      options.onProgress?.(`${time.now() / 1000} s: burst done ${JSON.stringify(burst)}`)
      const latest = Math.max(...made.map((g) => Date.parse(g.expiresAt as string)))
      // Every reminder due (the last grant's), then the sweep's minute.
      jumped = latest - REMINDER_BEFORE_MS - (epoch + time.now())
      reminders = await phase(() => sweepUntilDone((r) => r.reminded))
      jumped = latest - (epoch + time.now())
      expiry = await phase(() => sweepUntilDone((r) => r.expired))
      sampling = false
    },
  ])

  // Exactness, read outside the model.
  const reader2 = new DynamoDbGrantStore(setupClient, tables)
  const head = await reader2.findProgram(program.programId)
  const shards = await reader2.readShards(program.programId, head?.shards ?? 0)
  const lifeReader = new DynamoDbGrantLifeStore(setupClient, tables)
  let expiredGrants = 0
  for (let i = 0; i < made.length; i += 100) {
    const batch = await lifeReader.findGrants(made.slice(i, i + 100).map((g) => g.grantId))
    expiredGrants += batch.filter(
      (g) =>
        g.status === 'expired' &&
        (g.history ?? []).filter((e) => e.event === 'transition' && e.state === 'expired')
          .length === 1,
    ).length
  }
  const timerTable = new DynamoDbOfferTimerStore(setupClient, tables)
  let timersLeft = 0
  const perSlot = new Map<string, number>()
  for (const g of made)
    perSlot.set(timerSlot(g.grantId), (perSlot.get(timerSlot(g.grantId)) ?? 0) + 2)
  for (let n = 0; n < TIMER_SLOTS; n++) {
    const page = await timerTable.dueTimers({
      slot: `due#${n}`,
      upTo: '9999',
      limit: 1_000,
    })
    timersLeft += page.timers.filter((t) => made.some((g) => g.grantId === t.grantId)).length
  }
  raw.destroy()
  const loads = [...perSlot.values()]
  return {
    grants: made.length,
    clients,
    shards: head?.shards ?? 0,
    burst,
    reminders,
    expiry,
    issuedAfter: head?.issued ?? 0,
    remainingAfter: shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0),
    pool,
    expiredGrants,
    timersLeft,
    slotLoad: { min: Math.min(...loads), max: Math.max(...loads) },
  }
}

/**
 * Timers per slot for `grants` grant ids (the ids of grants sent with Idempotency-Keys, the real
 * slot function): how evenly a burst of that size lands on the timers table's 32 partition keys.
 * Pure: no DynamoDB. Deterministic: random ids made the figure (and its test) vary by run.
 */
export const slotSpread = (grants: number) => {
  const perSlot = new Array<number>(TIMER_SLOTS).fill(0)
  // A campaign's grants as an integrator sends them: one issuer, one Idempotency-Key per grant,
  // so the grant ids (and the figure) are the same in every run.
  for (let i = 0; i < grants; i++) {
    const grantId = idempotentGrantId('iss_campaign', 'LIVE', `campaign-${i}`)
    const slot = Number(timerSlot(grantId).slice('due#'.length))
    perSlot[slot] = (perSlot[slot] ?? 0) + 2
  }
  return { min: Math.min(...perSlot), max: Math.max(...perSlot), mean: (grants * 2) / TIMER_SLOTS }
}
