import { figureChangeOf } from '../../functions/core/grant-figures'
import {
  allHolderSlots,
  countedChanges,
  decodeHoldersCursor,
  encodeHoldersCursor,
  type FigureChange,
  HOLDER_SLOTS,
  holderSlot,
  sumFigures,
} from '../../functions/domain/figures'
import type { GrantRecord } from '../../functions/domain/grant'
import type { GrantState, RejectionReason } from '../../functions/domain/grant-lifecycle'
import type { TableChange } from '../../functions/stores/stream-records.store'

/** The pure rules of a program's figures (domain/figures.ts): every transition, once each. */

const ID = 'gr_00000000000000000000000001'
const base: GrantRecord = {
  grantId: ID,
  programId: 'prog_1',
  issuerId: 'iss_1',
  mode: 'LIVE',
  recipient: { email: 'ann@example.com' },
  recipientKey: 'ann@example.com',
  reason: 'r',
  amount: 40,
  status: 'reserved',
  createdAt: '2026-03-01T23:59:00.000Z',
  requestHash: 'h',
}

let seq = 0
/** A stream record of the grant's write: its INSERT without `before`, else a MODIFY. */
const write = (after: GrantRecord, before?: GrantRecord): TableChange => ({
  sequenceNumber: String(++seq),
  eventName: before ? 'MODIFY' : 'INSERT',
  keys: { grantId: after.grantId },
  newImage: after,
  oldImage: before,
  approximateCreationDateTime: 1,
})
const insert = (grant: GrantRecord = base) => write(grant)
const modify = (before: GrantRecord, after: GrantRecord) => write(after, before)

/** The grant moved to `to` on `at`, one history line more. */
const moved = (
  before: GrantRecord,
  to: GrantState,
  at: string,
  reason?: RejectionReason,
): GrantRecord => ({
  ...before,
  status: to,
  ...(reason ? { rejectionReason: reason } : {}),
  history: [
    ...(before.history ?? []),
    { at, event: 'transition', state: to, ...(reason ? { reason } : {}), actor: 'recipient' },
  ],
})

const change = (c: TableChange) => figureChangeOf(c) as FigureChange

test('an insert: made and its shares on createdAt’s UTC day, pending for its holder, version 0', () => {
  const c = change(insert())
  expect(c).toMatchObject({ grantId: ID, version: 0, inserted: true, final: false })
  expect(c.daily).toEqual([
    { programId: 'prog_1', date: '2026-03-01', counts: { made: 1, sharesIssued: 40 } },
  ])
  expect(c.holders).toEqual([
    { programId: 'prog_1', recipientKey: 'ann@example.com', accepted: 0, pending: 40 },
  ])
})

test('offered: counted on its history line’s day, the holder unchanged (still pending)', () => {
  const offered = moved(base, 'offered', '2026-03-02T00:00:01.000Z')
  const c = change(modify(base, offered))
  expect(c.version).toBe(1)
  expect(c.daily).toEqual([{ programId: 'prog_1', date: '2026-03-02', counts: { offered: 1 } }])
  expect(c.holders).toEqual([])
})

test('accepted: pending moves to accepted, and the day counts the grant and its shares', () => {
  const offered = moved(base, 'offered', '2026-03-02T00:00:00.000Z')
  const accepted = moved(offered, 'accepted', '2026-03-05T10:00:00.000Z')
  const c = change(modify(offered, accepted))
  expect(c).toMatchObject({ version: 2, final: true })
  expect(c.daily[0]).toEqual({
    programId: 'prog_1',
    date: '2026-03-05',
    counts: { accepted: 1, sharesAccepted: 40 },
  })
  expect(c.holders).toEqual([
    { programId: 'prog_1', recipientKey: 'ann@example.com', accepted: 40, pending: -40 },
  ])
})

test.each([
  ['rejected', 'declined', 'declined'],
  ['rejected', 'ineligible_age', 'ineligibleAge'],
  ['rejected', 'ineligible_country', 'ineligibleCountry'],
  ['expired', undefined, 'expired'],
  ['canceled', undefined, 'canceled'],
] as const)('%s (%s): out of pending, counted as %s and shares returned', (to, reason, counter) => {
  const after = moved(base, to, '2026-03-04T12:00:00.000Z', reason)
  const c = change(modify(base, after))
  expect(c.final).toBe(true)
  expect(c.daily).toEqual([
    { programId: 'prog_1', date: '2026-03-04', counts: { [counter]: 1, sharesReturned: 40 } },
  ])
  expect(c.holders).toEqual([
    { programId: 'prog_1', recipientKey: 'ann@example.com', accepted: 0, pending: -40 },
  ])
})

test('an address correction moves the open grant’s pending shares to the new holder; no day counts', () => {
  const corrected: GrantRecord = {
    ...base,
    recipient: { email: 'bob@example.com' },
    recipientKey: 'bob@example.com',
    history: [{ at: '2026-03-02T00:00:00.000Z', event: 'address', actor: 'person:x@y.z' }],
  }
  const c = change(modify(base, corrected))
  expect(c.daily).toEqual([])
  expect(c.holders).toEqual([
    { programId: 'prog_1', recipientKey: 'ann@example.com', accepted: 0, pending: -40 },
    { programId: 'prog_1', recipientKey: 'bob@example.com', accepted: 0, pending: 40 },
  ])
})

test('a delivery line, a REMOVE, a non-grant item add nothing', () => {
  const sent: GrantRecord = {
    ...base,
    history: [
      { at: '2026-03-02T00:00:00.000Z', event: 'delivery', delivery: 'sent', actor: 'service' },
    ],
  }
  expect(countedChanges([change(modify(base, sent))], new Map([[ID, 0]]))).toEqual([])
  expect(figureChangeOf({ ...insert(), eventName: 'REMOVE', newImage: undefined })).toBeUndefined()
  expect(figureChangeOf({ ...insert(), keys: { grantId: 'offer-token#x' } })).toBeUndefined()
})

test('a redelivered record counts nothing: a version at or below the counted one is dropped', () => {
  const offered = moved(base, 'offered', '2026-03-02T00:00:00.000Z')
  const ins = change(insert())
  const off = change(modify(base, offered))
  expect(countedChanges([ins, off], new Map([[ID, 0]]))).toEqual([off])
  expect(countedChanges([ins, off], new Map([[ID, 1]]))).toEqual([])
  // The same record twice in one batch counts once.
  expect(countedChanges([ins, ins, off, off], new Map())).toEqual([ins, off])
})

test('INSERT and MODIFY in one batch both count, summed per holder and per day', () => {
  const offered = moved(base, 'offered', '2026-03-01T23:59:30.000Z')
  const accepted = moved(offered, 'accepted', '2026-03-01T23:59:50.000Z')
  const changes = countedChanges(
    [change(insert()), change(modify(base, offered)), change(modify(offered, accepted))],
    new Map(),
  )
  expect(changes).toHaveLength(3)
  expect(sumFigures(changes)).toEqual({
    holders: [{ programId: 'prog_1', recipientKey: 'ann@example.com', accepted: 40, pending: 0 }],
    daily: [
      {
        programId: 'prog_1',
        date: '2026-03-01',
        counts: { made: 1, sharesIssued: 40, offered: 1, accepted: 1, sharesAccepted: 40 },
      },
    ],
  })
})

test('a MODIFY of a grant made before figures were kept (no marker, no INSERT) is left to a backfill', () => {
  const offered = moved(base, 'offered', '2026-03-02T00:00:00.000Z')
  expect(countedChanges([change(modify(base, offered))], new Map())).toEqual([])
})

test('holder slots: stable per address, within the program’s HOLDER_SLOTS', () => {
  const slot = holderSlot('prog_1', 'ann@example.com')
  expect(holderSlot('prog_1', 'ann@example.com')).toBe(slot)
  expect(allHolderSlots('prog_1')).toContain(slot)
  expect(allHolderSlots('prog_1')).toHaveLength(HOLDER_SLOTS)
})

test('the holders cursor round-trips, and one this store did not make is refused', () => {
  const positions = [
    'start',
    'done',
    { accepted: 120, recipientKey: 'a.b+c@example.com' },
    ...Array.from({ length: HOLDER_SLOTS - 3 }, () => 'start' as const),
  ] as const
  const cursor = encodeHoldersCursor(positions)
  expect(decodeHoldersCursor(cursor)).toEqual(positions)
  expect(decodeHoldersCursor('bm90IGEgY3Vyc29y')).toBeUndefined()
  expect(decodeHoldersCursor(`${cursor}x`)).toBeUndefined()
  expect(decodeHoldersCursor(42)).toBeUndefined()
})
