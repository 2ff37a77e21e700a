import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import type { _Record as StreamSdkRecord } from '@aws-sdk/client-dynamodb-streams'
import { marshall } from '@aws-sdk/util-dynamodb'
import type { DynamoDBRecord } from 'aws-lambda'
import { DAILY_COUNTERS, type DailyCounter } from '../../functions/domain/figures'
import type { GrantRecord } from '../../functions/domain/grant'
import type { GrantState, RejectionReason } from '../../functions/domain/grant-lifecycle'
import { grantListSlot } from '../../functions/domain/grant-slots'
import type { DailyFigure, HolderFigure } from '../../functions/stores/figures.store'
import type { TableChange } from '../../functions/stores/stream-records.store'
import { lambdaRecordOf } from '../../local/stream-poller'

/**
 * Grants of one program with realistic lives (a mix of every state, a few recipients holding many
 * grants, transitions on later days, address corrections, delivery lines), the stream records
 * their writes make, and the figures a scan of the final grants gives: for the figures tests.
 */

export type GrantLife = {
  final: GrantRecord
  /** Each write of the grant in order: INSERT (no `before`), then MODIFYs. */
  writes: { before?: GrantRecord; after: GrantRecord; at: number }[]
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** A small seeded generator (mulberry32): the same lives on every run. */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}

const idOf = (programId: string, n: number) =>
  `gr_${`${programId.replace(/[^0-9a-z]/g, '')}${n.toString(36)}`.padStart(26, '0').slice(-26)}`

/** `count` grants of `programId` made over `days` days from `start` (ms). */
export const grantLives = (
  programId: string,
  count: number,
  { start = Date.parse('2026-01-05T00:00:00.000Z'), days = 30, seed = 1 } = {},
): GrantLife[] => {
  const random = seeded(seed)
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T
  // A few recipients hold many grants; most hold one or two.
  const heavy = Array.from({ length: 6 }, (_, i) => `heavy${i}@example.com`)
  const recipient = (n: number) =>
    random() < 0.3 ? pick(heavy) : `r${Math.floor(n / 2)}@example.com`
  return Array.from({ length: count }, (_, n) => {
    const createdMs = start + Math.floor(random() * days * DAY)
    const email = recipient(n)
    const grant: GrantRecord = {
      grantId: idOf(programId, n),
      programId,
      issuerId: 'iss_figures',
      mode: 'LIVE',
      recipient: { email },
      recipientKey: email,
      reason: 'Figures',
      amount: 1 + Math.floor(random() * 500),
      status: 'reserved',
      createdAt: new Date(createdMs).toISOString(),
      expiresAt: new Date(createdMs + 30 * DAY).toISOString(),
      requestHash: 'figures',
      programSlot: grantListSlot(programId, idOf(programId, n)),
    }
    const writes: GrantLife['writes'] = [{ after: grant, at: createdMs }]
    let current = grant
    let at = createdMs
    const write = (change: (g: GrantRecord, iso: string) => GrantRecord) => {
      at += Math.floor(random() * 3 * DAY) + 1
      const next = change(current, new Date(at).toISOString())
      writes.push({ before: current, after: next, at })
      current = next
    }
    const move = (to: GrantState, reason?: RejectionReason) =>
      write((g, iso) => ({
        ...g,
        status: to,
        ...(reason ? { rejectionReason: reason } : {}),
        history: [
          ...(g.history ?? []),
          { at: iso, event: 'transition', state: to, ...(reason ? { reason } : {}), actor: 'x' },
        ],
      }))
    if (random() < 0.5) {
      write((g, iso) => ({
        ...g,
        history: [
          ...(g.history ?? []),
          { at: iso, event: 'delivery', delivery: 'sent', actor: 'service' },
        ],
      }))
    }
    if (random() < 0.04) {
      const to = `fixed${n}@example.com`
      write((g, iso) => ({
        ...g,
        recipient: { email: to },
        recipientKey: to,
        history: [...(g.history ?? []), { at: iso, event: 'address', actor: 'person:a@b.c' }],
      }))
    }
    const fate = random()
    if (fate < 0.04) move('rejected', 'ineligible_age')
    else if (fate < 0.07) move('rejected', 'ineligible_country')
    else if (fate < 0.1) move('canceled')
    else if (fate < 0.3) {
      // stays reserved
    } else {
      move('offered')
      const then = random()
      if (then < 0.55) move('accepted')
      else if (then < 0.65) move('rejected', 'declined')
      else if (then < 0.75) move('expired')
      else if (then < 0.8) move('canceled')
    }
    return { final: current, writes }
  })
}

/** Every write of the lives in stream order (by time; a grant's own writes stay in order). */
export const streamOrder = (lives: readonly GrantLife[]) =>
  lives
    .flatMap((life) => life.writes)
    .sort((a, b) => a.at - b.at)
    .map((w, n) => ({ ...w, sequenceNumber: String(1_000_000 + n).padStart(21, '0') }))

type Ordered = ReturnType<typeof streamOrder>[number]

/** A write as the stream reader's decoded change. */
export const tableChangeOfWrite = (w: Ordered): TableChange => ({
  sequenceNumber: w.sequenceNumber,
  eventName: w.before === undefined ? 'INSERT' : 'MODIFY',
  keys: { grantId: w.after.grantId },
  newImage: w.after,
  oldImage: w.before,
  approximateCreationDateTime: Math.floor(w.at / 1000),
})

const image = (item: GrantRecord) =>
  marshall(item, { removeUndefinedValues: true }) as Record<string, AttributeValue>

/** A write as Lambda (or local/stream-poller.ts) hands it to a grants stream reader. */
export const lambdaRecordOfWrite = (w: Ordered): DynamoDBRecord => {
  const sdk: StreamSdkRecord = {
    eventID: w.sequenceNumber,
    eventName: w.before === undefined ? 'INSERT' : 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'local',
    dynamodb: {
      ApproximateCreationDateTime: new Date(w.at),
      Keys: { grantId: { S: w.after.grantId } },
      NewImage: image(w.after),
      ...(w.before === undefined ? {} : { OldImage: image(w.before) }),
      SequenceNumber: w.sequenceNumber,
      SizeBytes: 1000,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  }
  return lambdaRecordOf(sdk, 'arn:aws:dynamodb:local:000000000000:table/grants/stream/figures')
}

const COUNTER_OF: Record<RejectionReason, DailyCounter> = {
  declined: 'declined',
  ineligible_age: 'ineligibleAge',
  ineligible_country: 'ineligibleCountry',
}

/**
 * The figures of final grants, computed as a scan would: holders from each grant's state and
 * address, days from `createdAt` and every transition line of its history. Holders with nothing
 * left are not holders.
 */
export const figuresOfGrants = (grants: readonly GrantRecord[]) => {
  const holders = new Map<string, HolderFigure>()
  const days = new Map<string, DailyFigure>()
  const day = (iso: string) => {
    const date = iso.slice(0, 10)
    const found =
      days.get(date) ??
      ({ date, ...Object.fromEntries(DAILY_COUNTERS.map((c) => [c, 0])) } as DailyFigure)
    days.set(date, found)
    return found
  }
  for (const g of grants) {
    const key = g.recipientKey ?? g.recipient.email
    const h = holders.get(key) ?? { email: key, accepted: 0, pending: 0 }
    if (g.status === 'reserved' || g.status === 'offered') h.pending += g.amount
    if (g.status === 'accepted') h.accepted += g.amount
    holders.set(key, h)
    const made = day(g.createdAt)
    made.made++
    made.sharesIssued += g.amount
    for (const line of g.history ?? []) {
      if (line.event !== 'transition' || line.state === undefined) continue
      const d = day(line.at)
      if (line.state === 'offered') d.offered++
      else if (line.state === 'accepted') {
        d.accepted++
        d.sharesAccepted += g.amount
      } else if (line.state !== 'reserved') {
        d[line.state === 'rejected' ? COUNTER_OF[line.reason ?? 'declined'] : line.state]++
        d.sharesReturned += g.amount
      }
    }
  }
  return {
    holders: [...holders.values()]
      .filter((h) => h.accepted !== 0 || h.pending !== 0)
      .sort((a, b) => b.accepted - a.accepted || (a.email < b.email ? -1 : 1)),
    daily: [...days.values()].sort((a, b) => (a.date < b.date ? -1 : 1)),
  }
}
