import type { OfferMailMessage } from '../consumers'
import type { GrantRecord } from '../domain/grant'
import { grantExpiresAt, reminderDueAt } from '../domain/grant-lifecycle'
import { type TimerRecord, timerFor } from '../domain/offer-timers'
import { isOpen } from '../domain/recipient-offer'
import type { TableChange } from '../stores/stream-records.store'

/**
 * The grants table's stream, read once for every consumer (the GrantStream function; locally
 * local/stream-poller.ts): which records mean offer mail, and which timers a new grant needs.
 * Pure: records in, messages and timers out, each tied to the record it came from so the handler
 * can report the first record it could not hand over (a stream's partial batch response).
 *
 * Rules (docs/architecture.md, "After a grant is stored"):
 * - only grant items (`gr_...`); link tokens, rate limits and batches in the same table are not
 *   grants;
 * - INSERT: offer / created, and the grant's timers: its expiry at `expiresAt`, its reminder at
 *   reminderDueAt when the window is long enough for one;
 * - MODIFY of a grant that is still open (reserved, offered):
 *   `recipient.email` changed: offer / corrected (the old links stopped working);
 *   otherwise `offer.resendRequestedAt` changed: offer / resend (the issuer's resend), or offer /
 *   relink when `offer.resendRequestedBy` says the recipient asked (its mail evicts no link);
 *   `offer.remindedAt` newly set (the sweep's remind): reminder / reminder;
 * - REMOVE (a TTL purge, a test's cleanup): nothing.
 * At most one offer and one reminder per record. A stream delivers a record at least once: the
 * message carries `at` (the change it stands for) so the consumer can tell a repeat.
 */

export type StreamOutput = {
  /** The record's SequenceNumber: the stream's item identifier in a partial batch response. */
  sequenceNumber: string
  messages: OfferMailMessage[]
  timers: TimerRecord[]
}

const GRANT_ID = /^gr_/

/** What one stream record asks for (nothing for a record that is not about a grant). */
export const readGrantRecord = (record: TableChange): StreamOutput | undefined => {
  const sequenceNumber = record.sequenceNumber
  if (sequenceNumber === undefined) return undefined
  const grantId = record.keys?.grantId
  if (typeof grantId !== 'string' || !GRANT_ID.test(grantId)) return undefined
  const output: StreamOutput = { sequenceNumber, messages: [], timers: [] }
  const after = record.newImage as GrantRecord | undefined
  const before = record.oldImage as GrantRecord | undefined

  if (record.eventName === 'INSERT' && after !== undefined) {
    output.messages.push({ kind: 'offer', grantId, cause: 'created', at: after.createdAt })
    const createdAt = Date.parse(after.createdAt)
    const expiresAt = grantExpiresAt(after)
    if (Number.isFinite(expiresAt)) output.timers.push(timerFor(grantId, 'expire', expiresAt))
    const remindAt = Number.isFinite(createdAt) ? reminderDueAt(createdAt, expiresAt) : undefined
    if (remindAt !== undefined) output.timers.push(timerFor(grantId, 'remind', remindAt))
    return output
  }
  if (record.eventName !== 'MODIFY' || after === undefined || before === undefined) return output
  if (!isOpen(after.status)) return output

  const email = after.recipient?.email
  const resendAt = after.offer?.resendRequestedAt
  if (email !== undefined && email !== before.recipient?.email) {
    output.messages.push({
      kind: 'offer',
      grantId,
      cause: 'corrected',
      at: changeTime(record, after),
    })
  } else if (resendAt !== undefined && resendAt !== before.offer?.resendRequestedAt) {
    const cause = after.offer?.resendRequestedBy === 'recipient' ? 'relink' : 'resend'
    output.messages.push({ kind: 'offer', grantId, cause, at: resendAt })
  }
  const remindedAt = after.offer?.remindedAt
  if (remindedAt !== undefined && before.offer?.remindedAt === undefined) {
    output.messages.push({ kind: 'reminder', grantId, cause: 'reminder', at: remindedAt })
  }
  return output
}

/** The record's time (ISO): the newest history line when there is one, else the stream's. */
const changeTime = (record: TableChange, after: GrantRecord): string => {
  const line = after.history?.at(-1)?.at
  if (line !== undefined) return line
  return new Date((record.approximateCreationDateTime ?? 0) * 1000).toISOString()
}

/** Every record of a batch, in order, with what it asks for (records about nothing included, empty). */
export const readGrantStream = (records: readonly TableChange[]): StreamOutput[] =>
  records.flatMap((record) => {
    const output = readGrantRecord(record)
    return output === undefined ? [] : [output]
  })
