import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda'
import { readGrantRecord } from '../../functions/core/grant-stream'
import { REMINDER_BEFORE_MS } from '../../functions/domain/grant-lifecycle'
import { timerSlot } from '../../functions/domain/offer-timers'
import { tableChangeOf } from '../../functions/stores/stream-records.dynamodb'

/** The stream reader's rules on records as Lambda delivers them (the edges the DynamoDB Local test does not reach). */

const image = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true }) as Record<string, SdkAttributeValue> as Record<
    string,
    AttributeValue
  >

const grant = (overrides: Record<string, unknown> = {}) => ({
  grantId: 'gr_00000000000000000000000001',
  status: 'reserved',
  recipient: { email: 'ann@example.com' },
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-31T00:00:00.000Z',
  ...overrides,
})

const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  after?: Record<string, unknown>,
  before?: Record<string, unknown>,
): DynamoDBRecord => ({
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: { grantId: { S: String((after ?? before)?.grantId) } },
    SequenceNumber: '100',
    ApproximateCreationDateTime: 1_767_225_600,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
    ...(after ? { NewImage: image(after) } : {}),
    ...(before ? { OldImage: image(before) } : {}),
  },
})

/** What a stream record as Lambda delivers it asks for, decoded as GrantStream decodes it. */
const readRecord = (r: DynamoDBRecord) => readGrantRecord(tableChangeOf(r))

const messages = (r: DynamoDBRecord) => readRecord(r)?.messages.map((m) => `${m.kind}/${m.cause}`)

test('an insert: the offer and both timers, in the slot of its grant id', () => {
  const out = readRecord(record('INSERT', grant()))
  expect(out?.messages).toEqual([
    { kind: 'offer', grantId: grant().grantId, cause: 'created', at: grant().createdAt },
  ])
  const expiresAt = Date.parse(grant().expiresAt)
  expect(out?.timers).toEqual([
    expect.objectContaining({
      kind: 'expire',
      slot: timerSlot(grant().grantId),
      due: `${grant().expiresAt}#${grant().grantId}#expire`,
    }),
    expect.objectContaining({
      kind: 'remind',
      due: `${new Date(expiresAt - REMINDER_BEFORE_MS).toISOString()}#${grant().grantId}#remind`,
    }),
  ])
})

test('a window of 3 days or less has no reminder; a grant from before offers expires after the default 30 days', () => {
  const short = readRecord(record('INSERT', grant({ expiresAt: '2026-01-03T00:00:00.000Z' })))
  expect(short?.timers.map((t) => t.kind)).toEqual(['expire'])
  const old = readRecord(record('INSERT', grant({ expiresAt: undefined })))
  expect(old?.timers[0]?.due).toMatch(/^2026-01-31T00:00:00.000Z#/)
})

test('modifications: corrected wins over a resend in the same record; a first remindedAt; a closed grant sends nothing', () => {
  const before = grant({ offer: { delivery: 'sent' } })
  expect(
    messages(record('MODIFY', grant({ recipient: { email: 'bob@example.com' } }), before)),
  ).toEqual(['offer/corrected'])
  expect(
    messages(
      record(
        'MODIFY',
        grant({
          recipient: { email: 'bob@example.com' },
          offer: { delivery: 'sent', resendRequestedAt: 'x' },
        }),
        before,
      ),
    ),
  ).toEqual(['offer/corrected'])
  expect(
    messages(
      record(
        'MODIFY',
        grant({ offer: { delivery: 'sent', resendRequestedAt: '2026-01-02T00:00:00.000Z' } }),
        before,
      ),
    ),
  ).toEqual(['offer/resend'])
  // The recipient's own request: its mail makes a link only if that pushes none out.
  expect(
    messages(
      record(
        'MODIFY',
        grant({
          offer: {
            delivery: 'sent',
            resendRequestedAt: '2026-01-02T00:00:00.000Z',
            resendRequestedBy: 'recipient',
          },
        }),
        before,
      ),
    ),
  ).toEqual(['offer/relink'])
  const reminded = grant({ offer: { delivery: 'sent', remindedAt: '2026-01-28T00:00:00.000Z' } })
  expect(messages(record('MODIFY', reminded, before))).toEqual(['reminder/reminder'])
  // Already reminded: a later change (a delivery event) sends nothing again.
  expect(messages(record('MODIFY', { ...reminded, history: [] }, reminded))).toEqual([])
  expect(messages(record('MODIFY', { ...reminded, status: 'accepted' }, before))).toEqual([])
  expect(messages(record('MODIFY', grant({ status: 'offered' }), before))).toEqual([])
})

test('removals and items that are not grants are read as nothing', () => {
  expect(messages(record('REMOVE', undefined, grant()))).toEqual([])
  expect(
    readRecord(record('INSERT', { grantId: 'offer-token#abc', tokenOf: 'gr_1' })),
  ).toBeUndefined()
  expect(readRecord(record('INSERT', { grantId: 'batch#bat_1' }))).toBeUndefined()
})
