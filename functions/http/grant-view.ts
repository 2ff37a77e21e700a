import { csvLine } from '../domain/csv'
import type { GrantRecord } from '../domain/grant'
import { grantExpiresAt } from '../domain/grant-lifecycle'
import { toGrantResource } from './grant-resource'

/**
 * A grant as the management API shows it to the issuer's people: the grant API's resource, plus
 * where it came from. `source` is `api` (an integrator's API key: `keyId`), `console` (one grant
 * sent by a member: `sentBy`) or `batch` (a row of a batch a member committed: `sentBy` and
 * `batch`). The Idempotency-Key is the one the grant was made with (an integrator's own, or the
 * batch's `batch:<batchId>:row:<n>`). `requestId`: the request log's entry of the grant API request
 * that made it. Never the request hash.
 */
export const toManagedGrant = (grant: GrantRecord) => ({
  ...toGrantResource(grant),
  source: grant.batch !== undefined ? 'batch' : grant.sentBy !== undefined ? 'console' : 'api',
  sentBy: grant.sentBy === undefined ? null : { sub: grant.sentBy.sub, email: grant.sentBy.email },
  keyId: grant.keyId ?? null,
  batch: grant.batch === undefined ? null : { id: grant.batch.batchId, row: grant.batch.row },
  idempotencyKey: grant.idempotencyKey ?? null,
  // The integrator API's request that made it (issue 33): null for a console or batch grant, and
  // for one made before requests were logged.
  requestId: grant.requestId ?? null,
  ...grantLifeView(grant),
})

/**
 * A grant's life as its issuer's people see it: the rejection's reason, the end of the offer
 * window, the offer e-mail's delivery (never its link tokens), what identifying kept, the
 * acceptance, and the timeline (every transition and delivery event, oldest first).
 */
export const grantLifeView = (grant: GrantRecord) => ({
  rejectionReason: grant.rejectionReason ?? null,
  expiresAt: new Date(grantExpiresAt(grant)).toISOString(),
  delivery: {
    state: grant.offer?.delivery ?? 'pending',
    sends: grant.offer?.sends ?? 0,
    lastSentAt: grant.offer?.lastSentAt ?? null,
    resendRequestedAt: grant.offer?.resendRequestedAt ?? null,
    remindedAt: grant.offer?.remindedAt ?? null,
  },
  identity: grant.identity ?? null,
  acceptance: grant.acceptance ?? null,
  history: grant.history ?? [],
})

export type ManagedGrant = ReturnType<typeof toManagedGrant>

/** Where the management API shows a grant to its issuer's people (ManageGetGrant). */
export const managedGrantLocation = (grant: Pick<GrantRecord, 'issuerId' | 'grantId'>) =>
  `/manage/issuers/${encodeURIComponent(grant.issuerId)}/grants/${encodeURIComponent(grant.grantId)}`

/** The export's columns, in order (the header row). */
export const GRANT_CSV_COLUMNS = [
  'id',
  'created_at',
  'recipient_email',
  'recipient_name',
  'amount',
  'reason',
  'mode',
  'status',
  'source',
  'sent_by',
  'key_id',
  'batch_id',
  'batch_row',
  'idempotency_key',
] as const

export const grantCsvHeader = () => csvLine(GRANT_CSV_COLUMNS)

export const grantCsvLine = (grant: GrantRecord) => {
  const view = toManagedGrant(grant)
  return csvLine([
    view.id,
    view.createdAt,
    view.recipient.email,
    view.recipient.name,
    view.amount,
    view.reason,
    view.mode,
    view.status,
    view.source,
    view.sentBy?.email,
    view.keyId,
    view.batch?.id,
    view.batch?.row,
    view.idempotencyKey,
  ])
}
