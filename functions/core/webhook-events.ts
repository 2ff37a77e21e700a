import { BATCH_PREFIX, type BatchRecord, FINAL_BATCH_STATUSES } from '../domain/batch'
import type { GrantRecord } from '../domain/grant'
import type { GrantHistoryEntry, GrantState } from '../domain/grant-lifecycle'
import { type ProgramValueOutboxItem, VALUE_OUTBOX_PREFIX } from '../domain/program-value'
import {
  type BatchEventData,
  type GrantEventData,
  type ProgramValueEventData,
  type WebhookEvent,
  type WebhookEventKind,
  webhookEventId,
} from '../domain/webhooks'
import type { TableChange } from '../stores/stream-records.store'

/**
 * The webhook events of one record of the grants table's stream (issue 21, docs/webhooks.md),
 * read by GrantStream beside its offer mail and put on the Webhooks queue. Pure.
 *
 * Rules:
 * - a grant (`gr_...`) INSERT: `grant.created`;
 * - a grant MODIFY: one event per history line the new image has beyond the old one's (the store
 *   appends a line with every change, in the same write): a transition to offered, accepted,
 *   rejected, expired or canceled is `grant.<state>`; a delivery bounced, complained or failed is
 *   `grant.delivery_failed`; anything else (sent, reminded, a corrected address, reserved) is none;
 * - a batch (`batch#<batchId>`, itemType `grantBatch`) MODIFY whose status became `done` or
 *   `canceled`: `batch.completed`. Its chunks (`batch#<batchId>#...`), link tokens and rate limits
 *   make nothing;
 * - a value change's outbox item (`value#<programId>#<valueId>`, itemType `programValue`, put in
 *   the same transaction as the value: the programs table has no stream) INSERT:
 *   `program.value_changed`;
 * - REMOVE (a TTL purge, a cleanup): nothing.
 * An event's id is derived from what it stands for (the grant and its line's index, time and kind;
 * the batch and its final status), so a record the stream delivers twice makes the same events.
 * Data carries the address the integrator gave and nothing else personal: never the recipient's
 * name, identity, date of birth or country.
 */

const GRANT_ID = /^gr_/
const BATCH_ITEM = new RegExp(`^${BATCH_PREFIX}[^#]+$`)

const imageOf = <T>(record: TableChange, key: 'newImage' | 'oldImage'): T | undefined =>
  record[key] as T | undefined

const TRANSITION_KINDS: Partial<Record<GrantState, WebhookEventKind>> = {
  offered: 'grant.offered',
  accepted: 'grant.accepted',
  rejected: 'grant.rejected',
  expired: 'grant.expired',
  canceled: 'grant.canceled',
}
const FAILED_DELIVERIES = new Set(['bounced', 'complained', 'failed'])

/** The event kind of a history line, or undefined when it makes none. */
const kindOfLine = (line: GrantHistoryEntry): WebhookEventKind | undefined => {
  if (line.event === 'transition' && line.state !== undefined) return TRANSITION_KINDS[line.state]
  if (line.event === 'delivery' && line.delivery !== undefined) {
    return FAILED_DELIVERIES.has(line.delivery) ? 'grant.delivery_failed' : undefined
  }
  return undefined
}

const grantData = (grant: GrantRecord, state: GrantState): GrantEventData => ({
  grantId: grant.grantId,
  programId: grant.programId,
  mode: grant.mode,
  state,
  amount: grant.amount,
  recipient: { email: grant.recipient.email },
  createdAt: grant.createdAt,
})

const grantEvents = (record: TableChange, grantId: string): WebhookEvent[] => {
  const after = imageOf<GrantRecord>(record, 'newImage')
  if (after === undefined || after.issuerId === undefined || after.mode === undefined) return []
  const event = (type: WebhookEventKind, occurredAt: string, data: GrantEventData, id: string) => ({
    eventId: id,
    type,
    issuerId: after.issuerId,
    mode: after.mode,
    occurredAt,
    data,
  })

  if (record.eventName === 'INSERT') {
    return [
      event(
        'grant.created',
        after.createdAt,
        grantData(after, after.status),
        webhookEventId(grantId, 'created', after.createdAt),
      ),
    ]
  }
  const before = imageOf<GrantRecord>(record, 'oldImage')
  if (record.eventName !== 'MODIFY' || before === undefined) return []
  const lines = after.history ?? []
  const seen = before.history?.length ?? 0
  const events: WebhookEvent[] = []
  // The state as of each new line: the old image's, moved by each new transition in turn.
  let state = before.status
  for (let index = seen; index < lines.length; index++) {
    const line = lines[index] as GrantHistoryEntry
    if (line.event === 'transition' && line.state !== undefined) state = line.state
    const kind = kindOfLine(line)
    if (kind === undefined) continue
    const data = grantData(after, state)
    if (kind === 'grant.rejected' && line.reason !== undefined) data.rejectionReason = line.reason
    if (kind === 'grant.delivery_failed') {
      data.deliveryFailure = line.delivery as GrantEventData['deliveryFailure']
    }
    events.push(event(kind, line.at, data, webhookEventId(grantId, String(index), line.at, kind)))
  }
  return events
}

const batchEvents = (record: TableChange): WebhookEvent[] => {
  if (record.eventName !== 'MODIFY') return []
  const after = imageOf<BatchRecord>(record, 'newImage')
  const before = imageOf<BatchRecord>(record, 'oldImage')
  if (after === undefined || before === undefined || after.itemType !== 'grantBatch') return []
  const status = after.status
  if (status !== 'done' && status !== 'canceled') return []
  if (FINAL_BATCH_STATUSES.includes(before.status)) return []
  const data: BatchEventData = {
    batchId: after.batchId,
    programId: after.program,
    mode: after.mode,
    status,
    counts: {
      total: after.total,
      granted: after.granted,
      failed: after.failed,
      canceled: after.canceled ?? 0,
    },
  }
  return [
    {
      eventId: webhookEventId(after.batchId, status),
      type: 'batch.completed',
      issuerId: after.issuerId,
      mode: after.mode,
      occurredAt: after.finishedAt ?? after.updatedAt,
      data,
    },
  ]
}

const valueEvents = (record: TableChange): WebhookEvent[] => {
  if (record.eventName !== 'INSERT') return []
  const item = imageOf<ProgramValueOutboxItem>(record, 'newImage')
  if (item === undefined || item.itemType !== 'programValue') return []
  const data: ProgramValueEventData = {
    programId: item.program,
    mode: item.mode,
    valueId: item.valueId,
    tokenValue: item.amount,
    tokenValueCurrency: item.currency,
    tokenValueCalculatedDate: item.asOf,
    method: item.method ?? null,
    current: item.current,
    setAt: item.setAt,
  }
  return [
    {
      eventId: webhookEventId(item.valueId, 'value_changed'),
      type: 'program.value_changed',
      issuerId: item.issuerId,
      mode: item.mode,
      occurredAt: item.setAt,
      data,
    },
  ]
}

/** The events one stream record stands for, oldest first (none for most records). */
export const webhookEventsOf = (record: TableChange): WebhookEvent[] => {
  const key = record.keys?.grantId
  if (typeof key !== 'string') return []
  if (GRANT_ID.test(key)) return grantEvents(record, key)
  if (BATCH_ITEM.test(key)) return batchEvents(record)
  if (key.startsWith(VALUE_OUTBOX_PREFIX)) return valueEvents(record)
  return []
}
