import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda'
import { webhookEventsOf } from '../../functions/core/webhook-events'
import { type BatchChunk, type BatchRecord, batchKey, chunkKey } from '../../functions/domain/batch'
import type { GrantRecord } from '../../functions/domain/grant'
import type { GrantHistoryEntry } from '../../functions/domain/grant-lifecycle'
import { type GrantEventData, payloadOf, webhookEventId } from '../../functions/domain/webhooks'
import { tableChangeOf } from '../../functions/stores/stream-records.dynamodb'

/**
 * Which webhook events a record of the grants table's stream stands for (core/webhook-events.ts),
 * on records built as Lambda delivers them: real GrantRecords and BatchRecords, marshalled.
 */

const image = (item: object) =>
  marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true }) as Record<
    string,
    SdkAttributeValue
  > as Record<string, AttributeValue>

let sequence = 100
const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  after?: { grantId: string; [attribute: string]: unknown },
  before?: { grantId: string; [attribute: string]: unknown },
): DynamoDBRecord => ({
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: { grantId: { S: String((after ?? before)?.grantId) } },
    SequenceNumber: String(sequence++),
    ApproximateCreationDateTime: 1_767_225_600,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
    ...(after ? { NewImage: image(after) } : {}),
    ...(before ? { OldImage: image(before) } : {}),
  },
})

const GRANT_ID = 'gr_00000000000000000000000001'
const grant = (overrides: Partial<GrantRecord> = {}): GrantRecord => ({
  grantId: GRANT_ID,
  programId: 'pr_00000000000000000000000001',
  issuerId: 'is_00000000000000000000000001',
  mode: 'LIVE',
  recipient: { email: 'ann@example.com', name: 'Ann Example' },
  reason: 'Thanks',
  amount: 25,
  status: 'reserved',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-31T00:00:00.000Z',
  recipientKey: 'ann@example.com',
  shard: 3,
  requestHash: 'a'.repeat(64),
  idempotencyKey: 'key-1',
  keyId: 'key_1',
  programSlot: 'pr_00000000000000000000000001#7',
  offer: { delivery: 'pending', tokens: ['b'.repeat(64)] },
  ...overrides,
})

const line = (entry: Partial<GrantHistoryEntry> & Pick<GrantHistoryEntry, 'at' | 'event'>) => ({
  actor: 'service',
  ...entry,
})

/** A grant's change: `lines` appended to `before`'s history, `status` set. */
const change = (
  before: GrantRecord,
  lines: GrantHistoryEntry[],
  overrides: Partial<GrantRecord> = {},
) =>
  record(
    'MODIFY',
    { ...before, ...overrides, history: [...(before.history ?? []), ...lines] },
    before,
  )

/** The events of a stream record as Lambda delivers it, decoded as GrantStream decodes it. */
const eventsOf = (r: DynamoDBRecord) => webhookEventsOf(tableChangeOf(r))

const kinds = (r: DynamoDBRecord) => eventsOf(r).map((e) => e.type)

test('an insert is grant.created, at the grant’s createdAt, with its ids, state, amount, program, mode and address', () => {
  const events = eventsOf(record('INSERT', grant()))
  expect(events).toEqual([
    {
      eventId: webhookEventId(GRANT_ID, 'created', '2026-01-01T00:00:00.000Z'),
      type: 'grant.created',
      issuerId: 'is_00000000000000000000000001',
      mode: 'LIVE',
      occurredAt: '2026-01-01T00:00:00.000Z',
      data: {
        grantId: GRANT_ID,
        programId: 'pr_00000000000000000000000001',
        mode: 'LIVE',
        state: 'reserved',
        amount: 25,
        recipient: { email: 'ann@example.com' },
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    },
  ])
  expect(events[0]?.eventId).toMatch(/^evt_[a-z2-7]{26}$/)
})

test('each transition a grant makes is its grant.<state>, at its history line’s time', () => {
  const identified = line({
    at: '2026-01-02T00:00:00.000Z',
    event: 'transition',
    state: 'offered',
    actor: 'recipient',
  })
  const offered = grant({ status: 'offered', history: [identified] })
  expect(eventsOf(change(grant(), [identified], { status: 'offered' }))).toMatchObject([
    { type: 'grant.offered', occurredAt: identified.at, data: { state: 'offered' } },
  ])
  for (const state of ['accepted', 'expired', 'canceled'] as const) {
    const at = '2026-01-03T00:00:00.000Z'
    const events = eventsOf(
      change(offered, [line({ at, event: 'transition', state })], { status: state }),
    )
    expect(events).toMatchObject([{ type: `grant.${state}`, occurredAt: at, data: { state } }])
    expect(events[0]?.data).not.toHaveProperty('rejectionReason')
    expect(events[0]?.eventId).toBe(webhookEventId(GRANT_ID, '1', at, `grant.${state}`))
  }
})

test('grant.rejected carries its reason: declined, or ineligible from the identification', () => {
  const at = '2026-01-02T00:00:00.000Z'
  const declined = change(
    grant(),
    [line({ at, event: 'transition', state: 'rejected', reason: 'declined', actor: 'recipient' })],
    { status: 'rejected', rejectionReason: 'declined' },
  )
  expect(eventsOf(declined)).toMatchObject([
    { type: 'grant.rejected', data: { state: 'rejected', rejectionReason: 'declined' } },
  ])
  const ineligible = change(
    grant(),
    [line({ at, event: 'transition', state: 'rejected', reason: 'ineligible_age' })],
    { status: 'rejected', rejectionReason: 'ineligible_age' },
  )
  expect(eventsOf(ineligible)[0]?.data).toMatchObject({ rejectionReason: 'ineligible_age' })
})

test('a bounce, a complaint and a failed send are grant.delivery_failed, in the state the grant is in', () => {
  const sent = grant({
    offer: { delivery: 'sent', sends: 1 },
    history: [line({ at: '2026-01-01T00:00:01.000Z', event: 'delivery', delivery: 'sent' })],
  })
  for (const delivery of ['bounced', 'complained', 'failed'] as const) {
    const at = '2026-01-01T00:05:00.000Z'
    const events = eventsOf(
      change(sent, [line({ at, event: 'delivery', delivery, detail: 'Permanent' })], {
        offer: { delivery: 'failed', sends: 1 },
      }),
    )
    expect(events).toEqual([
      expect.objectContaining({
        type: 'grant.delivery_failed',
        occurredAt: at,
        data: expect.objectContaining({ state: 'reserved', deliveryFailure: delivery }),
      }),
    ])
  }
})

test('sent, test inbox, reminded, a corrected address and a record with no new line make no event', () => {
  const base = grant()
  for (const delivery of ['sent', 'test_inbox', 'reminded'] as const) {
    expect(
      kinds(change(base, [line({ at: '2026-01-01T00:00:01.000Z', event: 'delivery', delivery })])),
    ).toEqual([])
  }
  const corrected = change(
    base,
    [
      line({
        at: '2026-01-01T00:01:00.000Z',
        event: 'address',
        actor: 'person:a@example.com',
        detail: 'example.org',
      }),
    ],
    { recipient: { email: 'bob@example.org' }, recipientKey: 'bob@example.org' },
  )
  expect(kinds(corrected)).toEqual([])
  expect(
    kinds(
      change(base, [
        line({ at: '2026-01-01T00:00:02.000Z', event: 'transition', state: 'reserved' }),
      ]),
    ),
  ).toEqual([])
  // Only the link tokens changed (a relink): no line, no event.
  expect(
    kinds(change(base, [], { offer: { delivery: 'pending', tokens: ['c'.repeat(64)] } })),
  ).toEqual([])
})

test('several lines in one record: one event each, in order, each in the state as of its line; old lines are not repeated', () => {
  const history = [
    line({ at: '2026-01-01T00:00:01.000Z', event: 'delivery', delivery: 'sent' }),
    line({
      at: '2026-01-02T00:00:00.000Z',
      event: 'transition',
      state: 'offered',
      actor: 'simulation',
    }),
  ]
  const before = grant({ status: 'offered', history })
  const events = eventsOf(
    change(
      before,
      [
        line({ at: '2026-01-02T00:00:01.000Z', event: 'delivery', delivery: 'bounced' }),
        line({
          at: '2026-01-02T00:00:02.000Z',
          event: 'transition',
          state: 'canceled',
          actor: 'simulation',
        }),
      ],
      { status: 'canceled' },
    ),
  )
  expect(events.map((e) => [e.type, (e.data as GrantEventData).state])).toEqual([
    ['grant.delivery_failed', 'offered'],
    ['grant.canceled', 'canceled'],
  ])
  expect(events[0]?.eventId).toBe(
    webhookEventId(GRANT_ID, '2', '2026-01-02T00:00:01.000Z', 'grant.delivery_failed'),
  )
  expect(new Set(events.map((e) => e.eventId)).size).toBe(2)
})

test('a record delivered twice makes the same event ids; another change makes other ids', () => {
  const at = '2026-01-02T00:00:00.000Z'
  const accept = () =>
    change(
      grant({
        status: 'offered',
        history: [line({ at: '2026-01-01T12:00:00.000Z', event: 'transition', state: 'offered' })],
      }),
      [line({ at, event: 'transition', state: 'accepted', actor: 'recipient' })],
      { status: 'accepted' },
    )
  const first = eventsOf(accept())
  const again = eventsOf(accept())
  expect(again).toEqual(first)
  expect(eventsOf(record('INSERT', grant()))).toEqual(eventsOf(record('INSERT', grant())))
  const other = eventsOf(
    change(grant(), [line({ at, event: 'transition', state: 'canceled' })], { status: 'canceled' }),
  )
  expect(other[0]?.eventId).not.toBe(first[0]?.eventId)
})

test('no personal data beyond the address: never the name, identity, date of birth or country', () => {
  const identified = grant({
    status: 'accepted',
    identity: {
      name: 'Ann Example',
      country: 'DE',
      age: { atLeast: 18, passed: true },
      at: '2026-01-02T00:00:00.000Z',
    },
    acceptance: { termsVersion: 1, at: '2026-01-02T00:00:01.000Z' },
    sentBy: { sub: 'sub-1', email: 'issuer@example.com' },
    history: [
      line({
        at: '2026-01-02T00:00:00.000Z',
        event: 'transition',
        state: 'offered',
        actor: 'recipient',
      }),
    ],
  })
  const events = [
    ...eventsOf(record('INSERT', identified)),
    ...eventsOf(
      change(identified, [
        line({
          at: '2026-01-02T00:00:01.000Z',
          event: 'transition',
          state: 'accepted',
          actor: 'recipient',
        }),
      ]),
    ),
  ]
  expect(events.map((e) => e.type)).toEqual(['grant.created', 'grant.accepted'])
  for (const event of events) {
    const body = JSON.stringify(payloadOf(event))
    for (const word of [
      'name',
      'identity',
      'Ann Example',
      'birth',
      'dateOfBirth',
      'country',
      '"DE"',
      'age',
      'issuer@example.com',
      'sentBy',
      'reason',
      'Thanks',
      'requestHash',
      'tokens',
    ]) {
      expect(body).not.toContain(word)
    }
    expect(Object.keys(event.data).sort()).toEqual(
      ['amount', 'createdAt', 'grantId', 'mode', 'programId', 'recipient', 'state'].sort(),
    )
    expect((event.data as { recipient: object }).recipient).toEqual({ email: 'ann@example.com' })
  }
})

const BATCH_ID = 'bat_0000000000000000000000000a'
const batch = (overrides: Partial<BatchRecord> = {}): BatchRecord => ({
  grantId: batchKey(BATCH_ID),
  itemType: 'grantBatch',
  batchId: BATCH_ID,
  issuerId: 'is_00000000000000000000000001',
  program: 'pr_00000000000000000000000001',
  mode: 'TEST',
  idempotencyKey: 'batch-key',
  requestHash: 'd'.repeat(64),
  chunkPrefix: 'dddddddd',
  chunks: 2,
  createdBy: { sub: 'sub-1', email: 'issuer@example.com' },
  submittedAt: '2026-01-01T00:00:00.000Z',
  total: 150,
  refused: 2,
  amount: 1480,
  granted: 140,
  failed: 10,
  canceled: 0,
  chunksDone: 2,
  status: 'running',
  programSlot: 'pr_00000000000000000000000001#batches',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:01:00.000Z',
  ...overrides,
})

test('a batch that finishes is batch.completed (done or canceled) with its counts, once', () => {
  const finishedAt = '2026-01-01T00:02:00.000Z'
  const done = record(
    'MODIFY',
    batch({ status: 'done', finishedAt, updatedAt: finishedAt }),
    batch(),
  )
  expect(eventsOf(done)).toEqual([
    {
      eventId: webhookEventId(BATCH_ID, 'done'),
      type: 'batch.completed',
      issuerId: 'is_00000000000000000000000001',
      mode: 'TEST',
      occurredAt: finishedAt,
      data: {
        batchId: BATCH_ID,
        programId: 'pr_00000000000000000000000001',
        mode: 'TEST',
        status: 'done',
        counts: { total: 150, granted: 140, failed: 10, canceled: 0 },
      },
    },
  ])
  expect(eventsOf(done)).toEqual(eventsOf(done))

  const stopping = batch({
    cancelRequestedAt: '2026-01-01T00:00:30.000Z',
    granted: 40,
    canceled: 100,
    failed: 10,
  })
  const canceled = record(
    'MODIFY',
    { ...stopping, status: 'canceled', finishedAt, updatedAt: finishedAt },
    stopping,
  )
  expect(eventsOf(canceled)).toMatchObject([
    {
      type: 'batch.completed',
      data: { status: 'canceled', counts: { total: 150, granted: 40, failed: 10, canceled: 100 } },
    },
  ])
  // An older batch without `canceled` counts 0; no finishedAt: its updatedAt.
  const older = batch({ canceled: undefined, status: 'queued' })
  expect(
    eventsOf(record('MODIFY', { ...older, status: 'done', updatedAt: finishedAt }, older)),
  ).toMatchObject([{ occurredAt: finishedAt, data: { counts: { canceled: 0 } } }])
  // A personal e-mail (the committer's) is not in it.
  expect(JSON.stringify(eventsOf(done))).not.toContain('issuer@example.com')
})

test('a batch’s other changes, a finished batch changed again, its insert and removal make nothing', () => {
  const finished = batch({ status: 'done', finishedAt: '2026-01-01T00:02:00.000Z' })
  expect(kinds(record('MODIFY', batch({ granted: 141 }), batch()))).toEqual([])
  expect(
    kinds(record('MODIFY', batch({ status: 'running' }), batch({ status: 'queued' }))),
  ).toEqual([])
  expect(kinds(record('MODIFY', batch({ cancelRequestedAt: 'x' }), batch()))).toEqual([])
  expect(
    kinds(record('MODIFY', { ...finished, notifiedAt: '2026-01-01T00:03:00.000Z' }, finished)),
  ).toEqual([])
  expect(kinds(record('INSERT', batch({ status: 'queued' })))).toEqual([])
  expect(kinds(record('REMOVE', undefined, finished))).toEqual([])
})

test('chunks, link tokens, rate limits and removals make no event', () => {
  const chunk: BatchChunk = {
    grantId: chunkKey(BATCH_ID, 'dddddddd', 0),
    itemType: 'grantBatchChunk',
    batchId: BATCH_ID,
    index: 0,
    rows: [{ row: 1, email: 'ann@example.com', name: 'Ann', amount: 10 }],
    results: [],
  }
  expect(chunk.grantId).toBe(`batch#${BATCH_ID}#dddddddd#0000`)
  expect(kinds(record('INSERT', chunk))).toEqual([])
  // A chunk's record, even one that looked like a finished batch, is not a batch.
  const lookalike = { ...batch({ status: 'done' }), grantId: chunk.grantId }
  expect(kinds(record('MODIFY', lookalike, { ...batch(), grantId: chunk.grantId }))).toEqual([])
  expect(
    kinds(
      record('MODIFY', { ...chunk, results: [{ status: 'granted', grantId: GRANT_ID }] }, chunk),
    ),
  ).toEqual([])
  expect(kinds(record('INSERT', { grantId: 'offer-token#abc', tokenOf: GRANT_ID }))).toEqual([])
  expect(kinds(record('INSERT', { grantId: 'limit#resend#x', count: 1 }))).toEqual([])
  expect(kinds(record('REMOVE', undefined, grant({ status: 'expired' })))).toEqual([])
  const noKeys: DynamoDBRecord = { eventName: 'INSERT', dynamodb: { SequenceNumber: '1' } }
  expect(eventsOf(noKeys)).toEqual([])
})
