import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda'
import { consumerById } from '../../functions/consumers'
import { readGrantRecord } from '../../functions/core/grant-stream'
import { webhookEventsOf } from '../../functions/core/webhook-events'
import { ValidationFailed } from '../../functions/domain/errors'
import { newId } from '../../functions/domain/ids'
import {
  becomesCurrent,
  checkAsOfNotFuture,
  decodeValueCursor,
  encodeValueCursor,
  isCalendarDate,
  isCurrency,
  latestAsOf,
  type ProgramValueEntry,
  valueOutboxItem,
  valueSortKey,
} from '../../functions/domain/program-value'
import { SetProgramValueSchema } from '../../functions/domain/program-value-request.schema'
import { payloadOf, WEBHOOK_EVENT_KINDS } from '../../functions/domain/webhooks'
import { tableChangeOf } from '../../functions/stores/stream-records.dynamodb'

/**
 * The value of a share (issue 32): the rules of an entry, which entry is current, the history's
 * cursor, and the outbox item's way to `program.value_changed` on the grants table's stream.
 */

describe('an entry', () => {
  it('takes real dates only', () => {
    expect(['2026-02-28', '2024-02-29', '2026-12-31'].map(isCalendarDate)).toEqual([
      true,
      true,
      true,
    ])
    const wrong = ['2026-02-29', '2026-13-01', '2026-1-01', '26-01-01', '2026-01-01T00:00']
    expect(wrong.filter(isCalendarDate)).toEqual([])
  })

  it('allows the date it already is somewhere on Earth (UTC+14), no later', () => {
    const now = Date.parse('2026-11-29T10:00:00.000Z')
    expect(latestAsOf(now)).toBe('2026-11-30')
    expect(latestAsOf(Date.parse('2026-11-29T09:59:59.999Z'))).toBe('2026-11-29')
    expect(() => checkAsOfNotFuture('2026-11-30', now)).not.toThrow()
    expect(() => checkAsOfNotFuture('2026-12-01', now)).toThrow(ValidationFailed)
    try {
      checkAsOfNotFuture('2026-12-01', now)
    } catch (error) {
      expect((error as ValidationFailed).errors).toEqual([
        {
          field: 'asOf',
          message:
            'asOf must not be in the future (at most 2026-11-30, the date it already is somewhere on Earth)',
        },
      ])
    }
  })

  it('takes ISO 4217 codes in upper case only', () => {
    expect(['EUR', 'USD', 'CHF', 'JPY'].every(isCurrency)).toBe(true)
    expect(['eur', 'EURO', 'XYZ', 'E1R', ''].filter(isCurrency)).toEqual([])
  })

  it('checks the body: exact amounts as strings, the method trimmed, empty is none', () => {
    const parsed = SetProgramValueSchema.safeParse({
      amount: '0.10',
      currency: 'EUR',
      asOf: '2026-01-01',
      method: '  DCF  ',
    })
    expect(parsed.success && parsed.data).toEqual({
      amount: '0.10',
      currency: 'EUR',
      asOf: '2026-01-01',
      method: 'DCF',
    })
    const wrong = SetProgramValueSchema.safeParse({
      amount: 0.1,
      currency: 'EUR',
      asOf: '2026-01-01',
      method: '\u200b',
    })
    expect(wrong.success).toBe(false)
    expect(wrong.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['amount', 'amount must be a string such as "12.50"'],
      ['method', 'method must not be blank'],
    ])
  })
})

const entry = (asOf: string, setAt = '2026-11-29T10:00:00.000Z'): ProgramValueEntry => ({
  valueId: newId('value'),
  programId: newId('program'),
  amount: '12.50',
  currency: 'EUR',
  asOf,
  setAt,
  setBy: 'ann@example.com',
})

describe('the current value', () => {
  it('is the latest asOf; on the same date the one set last; a backdated one is not', () => {
    const current = entry('2026-06-01')
    expect(becomesCurrent(current, undefined)).toBe(true)
    expect(becomesCurrent(entry('2026-06-02'), current)).toBe(true)
    expect(becomesCurrent(entry('2026-06-01', '2026-11-29T10:00:00.001Z'), current)).toBe(true)
    expect(becomesCurrent(entry('2026-05-31', '2027-01-01T00:00:00.000Z'), current)).toBe(false)
    // The history's sort key sorts the same way.
    expect(valueSortKey(entry('2026-06-02')) > valueSortKey(current)).toBe(true)
  })

  it('pages the history with a cursor only this service makes', () => {
    const position = entry('2026-06-01')
    const cursor = encodeValueCursor(position)
    expect(decodeValueCursor(cursor)).toEqual({
      asOf: position.asOf,
      setAt: position.setAt,
      valueId: position.valueId,
    })
    for (const forged of [
      'abc',
      `${cursor}x`,
      encodeValueCursor({ ...position, asOf: '2026-6-1' }),
    ]) {
      expect(decodeValueCursor(forged)).toBeUndefined()
    }
  })
})

const image = (item: object) =>
  marshall(item, { removeUndefinedValues: true }) as Record<string, SdkAttributeValue> as Record<
    string,
    AttributeValue
  >
const record = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  item: { grantId: string },
  withImage = true,
): DynamoDBRecord => ({
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: { grantId: { S: item.grantId } },
    SequenceNumber: '100',
    StreamViewType: 'NEW_AND_OLD_IMAGES',
    ...(withImage ? { NewImage: image(item) } : {}),
    ...(eventName === 'INSERT' ? {} : { OldImage: image(item) }),
  },
})

/**
 * Lambda's event filter, for the shapes functions/consumers.ts uses: every key of the pattern
 * present, a list of allowed strings (or `{ prefix }`) at each leaf.
 */
const matches = (pattern: unknown, value: unknown): boolean => {
  if (Array.isArray(pattern)) {
    return pattern.some((allowed) =>
      typeof allowed === 'string'
        ? value === allowed
        : typeof value === 'string' && value.startsWith((allowed as { prefix: string }).prefix),
    )
  }
  if (typeof value !== 'object' || value === null) return false
  return Object.entries(pattern as Record<string, unknown>).every(([key, inner]) =>
    matches(inner, (value as Record<string, unknown>)[key]),
  )
}
const passesFilters = (r: DynamoDBRecord) => {
  const trigger = consumerById('GrantStream').trigger
  if (trigger.kind !== 'stream') throw new Error('GrantStream reads a stream')
  return trigger.filters.some((filter) => matches(filter, r))
}

describe('program.value_changed, from the outbox item on the grants stream', () => {
  const value = entry('2026-06-01')
  const outbox = valueOutboxItem(
    { ...value, method: 'DCF' },
    { issuerId: newId('issuer'), mode: 'LIVE', current: true, now: Date.now() },
  )

  it('is a kind endpoints may subscribe to', () => {
    expect(WEBHOOK_EVENT_KINDS).toContain('program.value_changed')
  })

  it('is made of the INSERT, with the same id when the record comes twice; never who set it', () => {
    const events = webhookEventsOf(tableChangeOf(record('INSERT', outbox)))
    expect(events).toEqual([
      {
        eventId: expect.stringMatching(/^evt_[a-z2-7]{26}$/),
        type: 'program.value_changed',
        issuerId: outbox.issuerId,
        mode: 'LIVE',
        occurredAt: value.setAt,
        data: {
          programId: value.programId,
          mode: 'LIVE',
          valueId: value.valueId,
          tokenValue: '12.50',
          tokenValueCurrency: 'EUR',
          tokenValueCalculatedDate: '2026-06-01',
          method: 'DCF',
          current: true,
          setAt: value.setAt,
        },
      },
    ])
    expect(webhookEventsOf(tableChangeOf(record('INSERT', outbox)))).toEqual(events)
    expect(JSON.stringify(payloadOf(events[0] as never))).not.toContain('ann@example.com')
  })

  it('is not made of its TTL purge, a change, or another item type under the prefix', () => {
    expect(webhookEventsOf(tableChangeOf(record('REMOVE', outbox, false)))).toEqual([])
    expect(webhookEventsOf(tableChangeOf(record('MODIFY', outbox)))).toEqual([])
    const other = { ...outbox, itemType: 'grantBatch' }
    expect(webhookEventsOf(tableChangeOf(record('INSERT', other)))).toEqual([])
  })

  it('reaches the reader through its Lambda filter on INSERT only; the offer reader ignores it', () => {
    expect(passesFilters(record('INSERT', outbox))).toBe(true)
    expect(passesFilters(record('MODIFY', outbox))).toBe(false)
    expect(passesFilters(record('REMOVE', outbox, false))).toBe(false)
    // The grants themselves still pass (the filter list only grew).
    expect(passesFilters(record('INSERT', { grantId: newId('grant') }))).toBe(true)
    expect(readGrantRecord(tableChangeOf(record('INSERT', outbox)))).toBeUndefined()
  })
})
