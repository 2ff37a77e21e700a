import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'
import { buildRuntime } from '../../functions/composition'
import type { OfferMailMessage } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeAdmin } from '../../functions/core/admin'
import { makeGrantLife } from '../../functions/core/grant-life'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import { LEASE_MS } from '../../functions/core/offer-sweep'
import { generateApiKey, hashApiKey, maskApiKey } from '../../functions/domain/api-key'
import type { GrantRecord } from '../../functions/domain/grant'
import { countsAsIssued, REMINDER_BEFORE_MS } from '../../functions/domain/grant-lifecycle'
import { newId } from '../../functions/domain/ids'
import { timerFor, timerSlot } from '../../functions/domain/offer-timers'
import type { ProgramRecord } from '../../functions/domain/program'
import type { ShardRecord } from '../../functions/domain/program-shards'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { tableNames } from '../../functions/table-schema'
import { makeGrantStreamHandler } from '../../functions/wiring/grant-stream.consumer'
import { makeOfferSweepHandler } from '../../functions/wiring/offer-sweep.consumer'
import { ensureTables } from '../../local/tables'
import { scanAll } from '../support/api'
import { seededRandom } from '../support/fault-injector'
import { checkClock, config, documentClient, dynamodb, TestClock } from '../support/runtime'

/**
 * An offer's expiry and reminder over time (issue 19), on DynamoDB Local, with a clock the test
 * moves (never a wait): the grants' own timers, written by the stream reader's handler, read and
 * deleted by the sweep (core/offer-sweep.ts), which expires or reminds through the grant's life.
 *
 * Tables of this file's own: the sweep reads every slot of its timers table, and a clock moved a
 * month ahead must not expire other files' grants.
 */
const tables = tableNames('expiry', `-${process.pid}`)
const DAY = 24 * 60 * 60 * 1000
const OFFER_MS = 30 * DAY

const clock = new TestClock(() => Date.now())
const runtime = buildRuntime(
  { ...config, tables },
  { dynamodb, documentClient, clock, monotonic: checkClock },
)
const grantStore = new DynamoDbGrantStore(documentClient, tables)
const lifeStore = new DynamoDbGrantLifeStore(documentClient, tables)
const adminStore = new DynamoDbAdminStore(documentClient, tables)
const admin = makeAdmin(adminStore)
const life = makeGrantLife({ store: lifeStore, clock: () => clock.now() })
const sweep = makeOfferSweepHandler(runtime)

/** What the stream reader queued (the reminder's mail is its business: it is only read here). */
const queued: OfferMailMessage[] = []
const streamHandler = makeGrantStreamHandler(runtime, {
  offerMail: {
    async sendBatch(entries) {
      for (const e of entries) queued.push(JSON.parse(e.body) as OfferMailMessage)
      return { failed: [] }
    },
  },
  // Webhook events are not this test's subject (test/local/grant-stream-webhooks.test.ts).
  webhooks: { sendBatch: async () => ({ failed: [] }) },
})
let sequence = 0
/** The stream record DynamoDB writes for a change of `grantId`, through the real reader. */
const streamed = async (
  eventName: 'INSERT' | 'MODIFY',
  after: GrantRecord,
  before?: GrantRecord,
) => {
  const record = {
    eventName,
    dynamodb: {
      Keys: { grantId: { S: after.grantId } },
      SequenceNumber: String(++sequence).padStart(21, '0'),
      NewImage: marshall(after, { removeUndefinedValues: true }),
      ...(before === undefined
        ? {}
        : { OldImage: marshall(before, { removeUndefinedValues: true }) }),
    },
  } as unknown as DynamoDBRecord
  const answer = await streamHandler({ Records: [record] } as DynamoDBStreamEvent)
  expect(answer.batchItemFailures).toEqual([])
}

beforeAll(async () => {
  await ensureTables(dynamodb, tables)
})
// Each test's sweeps see only its own grants' timers: the last test's are dropped.
beforeEach(async () => {
  clock.reset()
  clock.freeze()
  for (const item of await scanAll({ TableName: tables.timers, ConsistentRead: true })) {
    await documentClient.send(
      new DeleteCommand({ TableName: tables.timers, Key: { slot: item.slot, due: item.due } }),
    )
  }
})

const setUp = async (pool: number, shards: number, mode: 'TEST' | 'LIVE' = 'LIVE') => {
  const { issuerId } = await admin.createIssuer({ name: 'Expiry' })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode,
    name: 'expiry',
    pool,
    shards,
  })
  const secret = generateApiKey(mode)
  await adminStore.createApiKey({
    keyHash: hashApiKey(secret),
    keyId: newId('apiKey'),
    issuerId,
    mode,
    status: 'active',
    createdAt: new Date(clock.now()).toISOString(),
    ...maskApiKey(secret),
  })
  return { issuerId, programId: program.programId, key: secret }
}

/** Grants made now (the test's clock), with their timers written by the stream reader. */
const makeGrants = async (target: { programId: string; key: string }, amounts: number[]) => {
  const send = makeGrantTokens({
    store: grantStore,
    access: new AccessCache(grantStore, { now: () => checkClock.now() }),
    clock: () => clock.now(),
    random: seededRandom(amounts.length),
  })
  const made: GrantRecord[] = []
  for (const [i, amount] of amounts.entries()) {
    const { grant } = await send({
      apiKey: target.key,
      programId: target.programId,
      idempotencyKey: `expiry-${target.programId}-${i}`,
      body: { recipient: { email: `r${i}@example.com`, name: `R ${i}` }, reason: 'Launch', amount },
    })
    const stored = (await lifeStore.findGrant(grant.grantId)) as GrantRecord
    await streamed('INSERT', stored)
    made.push(stored)
  }
  return made
}

/** A grant's timers still in the table, by kind. */
const timersOf = async (grantId: string) => {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: tables.timers,
      KeyConditionExpression: 'slot = :s',
      FilterExpression: 'grantId = :g',
      ExpressionAttributeValues: { ':s': timerSlot(grantId), ':g': grantId },
      ConsistentRead: true,
    }),
  )
  return Items.map((item) => item.kind as string).sort()
}

/** The program's head and shards; pool = issued + what the slices hold; issued = open + accepted. */
const expectExact = async (programId: string, pool: number) => {
  const head = (await lifeStore.findProgramHead(programId)) as ProgramRecord
  const shards = (await scanAll({
    TableName: tables.programs,
    FilterExpression: 'shardOf = :p',
    ExpressionAttributeValues: { ':p': programId },
    ConsistentRead: true,
  })) as ShardRecord[]
  const grants = await scanAll({
    TableName: tables.grants,
    FilterExpression: 'programId = :p',
    ExpressionAttributeValues: { ':p': programId },
    ConsistentRead: true,
  })
  const issued = (head.issued ?? 0) + shards.reduce((sum, s) => sum + (s.issued ?? 0), 0)
  const held = shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0)
  const open = (grants as GrantRecord[])
    .filter((g) => countsAsIssued(g.status))
    .reduce((sum, g) => sum + g.amount, 0)
  expect(issued).toBe(open)
  expect(issued + held).toBe(pool)
  return { issued, held }
}

const transitionsTo = (grant: GrantRecord | undefined, state: string) =>
  (grant?.history ?? []).filter((e) => e.event === 'transition' && e.state === state)

describe('an offer past its expiry', () => {
  it('cannot be accepted a millisecond after its window, though it could a millisecond before', async () => {
    const target = await setUp(1_000, 4)
    const [late, inTime] = await makeGrants(target, [5, 7])
    const links = await Promise.all(
      [late, inTime].map(
        async (g) => (await life.issueOfferLink((g as GrantRecord).grantId))?.token,
      ),
    )
    for (const [n, g] of [late, inTime].entries()) {
      await life.identify({ token: links[n], grantId: (g as GrantRecord).grantId, name: 'R' })
    }
    const expiresAt = Date.parse((late as GrantRecord).expiresAt as string)
    expect(expiresAt - Date.parse((late as GrantRecord).createdAt)).toBe(OFFER_MS)

    // One millisecond before: accepted.
    clock.freeze(expiresAt - 1)
    await life.accept({
      token: links[1],
      grantId: (inTime as GrantRecord).grantId,
      termsVersion: 0,
    })
    expect((await lifeStore.findGrant((inTime as GrantRecord).grantId))?.status).toBe('accepted')

    // At expiry, before any sweep has run: refused, as an unknown link is, and nothing written.
    clock.freeze(expiresAt)
    const before = await lifeStore.findGrant((late as GrantRecord).grantId)
    await expect(
      life.accept({ token: links[0], grantId: (late as GrantRecord).grantId, termsVersion: 0 }),
    ).rejects.toMatchObject({ code: 'offer_link_invalid' })
    expect(await lifeStore.findGrant((late as GrantRecord).grantId)).toEqual(before)
    expect(before?.status).toBe('offered')
    await expectExact(target.programId, 1_000)
  })
})

describe('the offer sweep', () => {
  it('expires every grant past its window and returns its shares exactly once, with two sweeps at once', async () => {
    const pool = 1_000
    const target = await setUp(pool, 8)
    const amounts = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    const made = await makeGrants(target, amounts)
    const spent = amounts.reduce((a, b) => a + b, 0)
    expect((await expectExact(target.programId, pool)).issued).toBe(spent)
    for (const g of made) expect(await timersOf(g.grantId)).toEqual(['expire', 'remind'])

    // A millisecond before the window ends: nothing is due, nothing moves.
    clock.advance(OFFER_MS - 1)
    const early = await Promise.all([sweep(), sweep()])
    for (const report of early) expect(report.expired).toBe(0)
    expect((await expectExact(target.programId, pool)).issued).toBe(spent)

    // The window's end: two sweeps at once (EventBridge's next run while one is still going).
    clock.advance(1)
    const [a, b] = await Promise.all([sweep(), sweep()])
    expect(a.expired + b.expired).toBe(made.length)
    expect(a.failed + b.failed).toBe(0)
    for (const g of made) {
      const after = await lifeStore.findGrant(g.grantId)
      expect(after?.status).toBe('expired')
      expect(transitionsTo(after, 'expired')).toHaveLength(1)
      expect(transitionsTo(after, 'expired')[0]).toMatchObject({
        at: new Date(clock.now()).toISOString(),
        actor: 'service',
      })
      expect(await timersOf(g.grantId)).toEqual([])
    }
    // Every share back in the slices, once: the pool whole again.
    expect(await expectExact(target.programId, pool)).toEqual({ issued: 0, held: pool })

    // A third run finds nothing left.
    clock.advance(60_000)
    expect(await sweep()).toMatchObject({ read: 0, expired: 0, complete: true })
    expect(await expectExact(target.programId, pool)).toEqual({ issued: 0, held: pool })
  })

  it('only deletes the timers of a grant that ended before its window (accepted, canceled): no second return', async () => {
    const pool = 500
    const target = await setUp(pool, 4)
    const [accepted, canceled] = await makeGrants(target, [10, 20])
    const token = (await life.issueOfferLink((accepted as GrantRecord).grantId))?.token
    await life.identify({ token, grantId: (accepted as GrantRecord).grantId, name: 'A' })
    await life.accept({ token, grantId: (accepted as GrantRecord).grantId, termsVersion: 0 })
    await life.cancel({
      grantId: (canceled as GrantRecord).grantId,
      issuerId: target.issuerId,
      actor: { kind: 'operator' },
    })
    expect(await expectExact(target.programId, pool)).toEqual({ issued: 10, held: 490 })

    clock.advance(OFFER_MS)
    const report = await sweep()
    // Both grants' two timers: the reminders and the expiries, each settled without a change.
    expect(report).toMatchObject({ read: 4, expired: 0, reminded: 0, settled: 4, deleted: 4 })
    expect((await lifeStore.findGrant((accepted as GrantRecord).grantId))?.status).toBe('accepted')
    expect((await lifeStore.findGrant((canceled as GrantRecord).grantId))?.status).toBe('canceled')
    expect(await timersOf((accepted as GrantRecord).grantId)).toEqual([])
    expect(await timersOf((canceled as GrantRecord).grantId)).toEqual([])
    expect(await expectExact(target.programId, pool)).toEqual({ issued: 10, held: 490 })
  })

  it('marks the reminder once, 3 days before the window ends, and the stream reader queues it once', async () => {
    const target = await setUp(100, 1)
    const [grant] = (await makeGrants(target, [3])) as [GrantRecord]
    const remindAt = Date.parse(grant.expiresAt as string) - REMINDER_BEFORE_MS
    expect(remindAt - Date.parse(grant.createdAt)).toBe(27 * DAY)

    // A millisecond early: not due, nothing marked, the timer kept.
    clock.freeze(remindAt - 1)
    expect(await sweep()).toMatchObject({ read: 0, reminded: 0 })
    expect((await lifeStore.findGrant(grant.grantId))?.offer?.remindedAt).toBeUndefined()
    expect(await timersOf(grant.grantId)).toEqual(['expire', 'remind'])

    // Due: two sweeps at once mark it once.
    clock.freeze(remindAt)
    const reports = await Promise.all([sweep(), sweep()])
    expect(reports.reduce((n, r) => n + r.reminded, 0)).toBe(1)
    const reminded = (await lifeStore.findGrant(grant.grantId)) as GrantRecord
    expect(reminded.status).toBe('reserved')
    expect(reminded.offer?.remindedAt).toBe(new Date(remindAt).toISOString())
    expect(await timersOf(grant.grantId)).toEqual(['expire'])

    // The change reaches the stream reader as one reminder message.
    queued.length = 0
    await streamed('MODIFY', reminded, grant)
    expect(queued).toEqual([expect.objectContaining({ kind: 'reminder', grantId: grant.grantId })])

    // Later runs do not mark it again.
    clock.advance(DAY)
    expect(await sweep()).toMatchObject({ read: 0, reminded: 0 })
    expect((await lifeStore.findGrant(grant.grantId))?.offer?.remindedAt).toBe(
      new Date(remindAt).toISOString(),
    )
  })

  it('leaves a timer the grant says is not due for the next run', async () => {
    const target = await setUp(100, 1)
    const [grant] = (await makeGrants(target, [1])) as [GrantRecord]
    // A timer ahead of its grant (written by hand: due now, the grant's window a month away).
    const early = timerFor(grant.grantId, 'expire', clock.now())
    await documentClient.send(new PutCommand({ TableName: tables.timers, Item: early }))
    const report = await sweep()
    expect(report).toMatchObject({ read: 1, notDue: 1, expired: 0, deleted: 0 })
    // Left for a later run: taken up again once its lease has run out, and still not due.
    expect(await sweep()).toMatchObject({ read: 1, held: 1, notDue: 0 })
    clock.advance(LEASE_MS)
    expect(await sweep()).toMatchObject({ read: 1, held: 0, notDue: 1 })
    expect((await lifeStore.findGrant(grant.grantId))?.status).toBe('reserved')
    expect(await timersOf(grant.grantId)).toEqual(['expire', 'expire', 'remind'])
  })
})
