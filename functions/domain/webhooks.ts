import { createHash } from 'node:crypto'
import type { Mode } from './api-key'
import type { GrantState, RejectionReason } from './grant-lifecycle'
import { base32 as base32Of } from './ids'
import type { WebhookEventKind } from './webhook-rules'

// The kinds and limits live without node:crypto (webhook-rules.ts), for the console too.
export { WEBHOOK_EVENT_KINDS, WEBHOOK_LIMITS, type WebhookEventKind } from './webhook-rules'

/**
 * Webhooks (issue 21, docs/webhooks.md): the events integrators can subscribe to, the payloads
 * they receive, an endpoint and its delivery log, and the retry schedule. Pure: every door (the
 * management API, the sender, the console's types, the OpenAPI document) reads these.
 */

/** What "send a test event" sends: never caused by a state change, never subscribed to. */
export const WEBHOOK_TEST_KIND = 'webhook.test'
export type WebhookPayloadType = WebhookEventKind | typeof WEBHOOK_TEST_KIND

/** `grant.*` data: the grant's ids, state, amount, program, mode and time; no more personal data than the integrator sent. */
export type GrantEventData = {
  grantId: string
  programId: string
  mode: Mode
  state: GrantState
  amount: number
  /** The address the integrator (or the issuer's correction) gave: nothing the recipient added. */
  recipient: { email: string }
  /** `grant.rejected` only. */
  rejectionReason?: RejectionReason
  /** `grant.delivery_failed` only: `bounced`, `complained` or `failed`. */
  deliveryFailure?: 'bounced' | 'complained' | 'failed'
  /** When the grant was made (ISO). */
  createdAt: string
}

export type BatchEventData = {
  batchId: string
  programId: string
  mode: Mode
  /** `done`: every row was tried; `canceled`: an issuer stopped it. */
  status: 'done' | 'canceled'
  counts: { total: number; granted: number; failed: number; canceled: number }
}

export type PoolLowEventData = {
  programId: string
  mode: Mode
  pool: number
  /** What the pool held in the snapshot that crossed the threshold. */
  remaining: number
  threshold: number
}

export type TestEventData = { endpointId: string; message: string }

/**
 * `program.value_changed` (issue 32): a value of a share was set, under the names of the program's
 * read (`tokenValue`, ...). `current`: whether it became the program's value (a backdated entry
 * joins the history only). Never who set it.
 */
export type ProgramValueEventData = {
  programId: string
  mode: Mode
  valueId: string
  tokenValue: string
  tokenValueCurrency: string
  tokenValueCalculatedDate: string
  method: string | null
  current: boolean
  /** When it was set (ISO). */
  setAt: string
}

export type WebhookEventData =
  | GrantEventData
  | BatchEventData
  | PoolLowEventData
  | ProgramValueEventData
  | TestEventData

/**
 * One event, as GrantStream makes it from a stream record (or the sender from a pool snapshot):
 * its id is derived from the change it stands for, so a record delivered twice makes the same
 * event, and so the same message id (`webhook-id`) at the receiver.
 */
export type WebhookEvent = {
  /** `evt_` + 26 lower-case base32 of a hash of what it stands for (webhookEventId). */
  eventId: string
  type: WebhookPayloadType
  issuerId: string
  mode: Mode
  /** When the change happened (ISO): the payload's `timestamp`. */
  occurredAt: string
  data: WebhookEventData
}

/**
 * The body a receiver gets, the Standard Webhooks shape: `type`, `timestamp` (the change's time,
 * not the attempt's; the attempt's is the `webhook-timestamp` header) and `data`. Fixed at v1:
 * fields may be added, never removed or changed; details come from the existing GETs.
 */
export type WebhookPayload = { type: WebhookPayloadType; timestamp: string; data: WebhookEventData }

export const payloadOf = (event: WebhookEvent): WebhookPayload => ({
  type: event.type,
  timestamp: event.occurredAt,
  data: event.data,
})

// RFC 4648's alphabet, lower-cased: ids already sent to receivers keep their letters.
const RFC4648 = 'abcdefghijklmnopqrstuvwxyz234567'
const base32 = (bytes: Buffer, length: number) => base32Of(bytes, length, RFC4648)
const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest()

/** The event id of a change: the same parts always make the same id. */
export const webhookEventId = (...parts: string[]) => `evt_${base32(digest(...parts), 26)}`

/**
 * A message id (`webhook-id`): `msg_` + the event's time in ms (12 hex digits, so an endpoint's
 * messages sort by time) + 20 base32 of a hash of the event and the endpoint. A repeated event
 * makes the same message for the same endpoint.
 */
export const webhookMessageId = (
  event: Pick<WebhookEvent, 'eventId' | 'occurredAt'>,
  endpointId: string,
) => {
  const ms = Math.max(0, Date.parse(event.occurredAt) || 0)
  return `msg_${ms.toString(16).padStart(12, '0')}${base32(digest(event.eventId, endpointId), 20)}`
}

/** The smallest message id at or after `time`: where "every message since" starts. */
export const messageIdFloor = (time: number) =>
  `msg_${Math.max(0, time).toString(16).padStart(12, '0')}`

export const WEBHOOK_ENDPOINT_ID = /^we_[a-z2-7]{26}$/
export const WEBHOOK_MESSAGE_ID = /^msg_[0-9a-f]{12}[a-z2-7]{20}$/

/**
 * The waits before each retry after a failed attempt (seconds): 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 14 h, 20 h, 20 h, so the last of the 10 attempts comes about 3 days (71.6 h) after the
 * first. Each wait is jittered by up to ±20% (nextAttemptDelay). A 429 or 503 whose Retry-After
 * asks for longer is honoured, up to the next step's wait after that.
 */
export const WEBHOOK_RETRY_SCHEDULE_SECONDS = [
  5,
  5 * 60,
  30 * 60,
  2 * 3600,
  5 * 3600,
  10 * 3600,
  14 * 3600,
  20 * 3600,
  20 * 3600,
] as const

/** SQS's longest DelaySeconds: longer waits are several hops carrying `notBefore`. */
export const SQS_MAX_DELAY_SECONDS = 900

/**
 * The wait (ms) after the `failed`-th failed attempt (1 = the first), or undefined when the
 * schedule is spent. `random` in [0, 1) jitters it by ±20%; `retryAfterSeconds` (a 429's or
 * 503's Retry-After) lengthens it, never past the schedule's next step.
 */
export const nextAttemptDelay = (
  failed: number,
  random: () => number,
  retryAfterSeconds?: number,
): number | undefined => {
  const base = WEBHOOK_RETRY_SCHEDULE_SECONDS[failed - 1]
  if (base === undefined) return undefined
  const jittered = base * (0.8 + 0.4 * random())
  const cap = WEBHOOK_RETRY_SCHEDULE_SECONDS[failed] ?? base
  const asked = retryAfterSeconds === undefined ? 0 : Math.min(retryAfterSeconds, cap)
  return Math.round(Math.max(jittered, asked) * 1000)
}

/** Why an endpoint is disabled: by a person, by a `410 Gone`, or after failing for days. */
export type EndpointDisabledReason = 'manual' | 'gone' | 'failing'

/** A signing secret as stored: sealed (secret-box.ts), never plain. */
export type StoredSecret = {
  /** The sealed `whsec_...` secret. */
  sealed: string
  createdAt: string
  /** Set on the previous secret by a rotation: it signs alongside the new one until then. */
  expiresAt?: string
}

/** Item of the webhooks table: one endpoint (`pk = endpoints#<issuerId>`, `sk = <endpointId>`). */
export type WebhookEndpointRecord = {
  pk: string
  sk: string
  endpointId: string
  issuerId: string
  mode: Mode
  url: string
  description?: string
  /** The event kinds it receives (at least one). */
  kinds: WebhookEventKind[]
  enabled: boolean
  disabledReason?: EndpointDisabledReason
  disabledAt?: string
  /** The current secret first; a rotated-out one after it until its `expiresAt`. */
  secrets: StoredSecret[]
  createdAt: string
  updatedAt: string
  /** The first failed attempt since the last successful one (ISO); absent while it succeeds. */
  failingSince?: string
  lastSuccessAt?: string
  /** Bumped by every write, the condition of the next one. */
  version: number
}

/** One attempt to deliver a message, as the delivery log shows it. */
export type WebhookAttempt = {
  /** When it started (ISO, the real time: also its `webhook-timestamp`). */
  at: string
  /** The HTTP status, when a response came. */
  status?: number
  /** Why no usable response: `timeout`, `connection`, `refused_address` (a private address), `redirect`, `tls`, `dns`. */
  error?: string
  latencyMs: number
  /** The start of the response body (WEBHOOK_LIMITS.responseKeptChars). */
  response?: string
  /** What started it: the schedule, a replay, or the console's test button. */
  trigger: 'auto' | 'replay' | 'test'
}

export type WebhookMessageStatus = 'pending' | 'delivered' | 'failed'

/** Item of the webhooks table: a message to one endpoint (`pk = messages#<endpointId>`, `sk = <messageId>`). */
export type WebhookMessageRecord = {
  pk: string
  sk: string
  messageId: string
  endpointId: string
  issuerId: string
  mode: Mode
  eventId: string
  type: WebhookPayloadType
  /** The body, exactly as signed and sent on every attempt. */
  body: string
  status: WebhookMessageStatus
  attempts: WebhookAttempt[]
  /** The next scheduled attempt (ISO), while `pending`. */
  nextAttemptAt?: string
  createdAt: string
  /** Epoch seconds: the table's TTL (WEBHOOK_LIMITS.keepDays after creation). */
  purgeAt: number
}

/**
 * The Webhooks queue's messages (functions/consumers.ts WEBHOOKS_QUEUE):
 * - `event`: fan out to the issuer's subscribed endpoints in the event's mode;
 * - `delivery`: one attempt of one message (`attempt` counts the automatic attempts so far,
 *   `notBefore` is when it may run: earlier, it is put back with a delay);
 * - `replay`: every message of an endpoint since `since`, from `cursor` on, a page at a time.
 */
export type WebhookQueueMessage =
  | { kind: 'event'; event: WebhookEvent }
  | {
      kind: 'delivery'
      issuerId: string
      endpointId: string
      messageId: string
      attempt: number
      trigger: WebhookAttempt['trigger']
      notBefore?: string
    }
  | { kind: 'replay'; issuerId: string; endpointId: string; since: string; cursor?: string }

/** The table keys. */
export const endpointKey = (issuerId: string, endpointId: string) => ({
  pk: `endpoints#${issuerId}`,
  sk: endpointId,
})
export const messageKey = (endpointId: string, messageId: string) => ({
  pk: `messages#${endpointId}`,
  sk: messageId,
})
export const poolLowKey = (programId: string) => ({ pk: `pool-low#${programId}`, sk: 'mark' })
/**
 * How many endpoints an issuer has in a mode (`n`), moved in the same transaction as each create
 * and delete: the guarantee behind WEBHOOK_LIMITS.endpointsPerMode when two creates race.
 */
export const endpointCountKey = (issuerId: string, mode: Mode) => ({
  pk: `endpoint-count#${issuerId}`,
  sk: mode,
})
