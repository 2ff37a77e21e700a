import type { Mode } from '../domain/api-key'
import { auditEntry } from '../domain/audit-entry'
import { WEBHOOK_SENDER } from '../domain/people'
import {
  type EndpointDisabledReason,
  SQS_MAX_DELAY_SECONDS,
  type WebhookEndpointRecord,
  type WebhookQueueMessage,
} from '../domain/webhooks'
import { type QueueEntry, type QueueSender, sendAll } from '../runtime/queue-sender'
import type { WebhookHttp } from '../runtime/safe-http'
import type {
  WebhookDeliveryStore,
  WebhookEndpointStore,
  WebhookMessageStore,
} from '../stores/webhooks.store'

/** What the sender needs of the store (its interfaces: stores/webhooks.store.ts). */
export type WebhookSenderStore = Pick<
  WebhookEndpointStore & WebhookMessageStore & WebhookDeliveryStore,
  | 'listEndpoints'
  | 'getEndpoint'
  | 'putMessage'
  | 'getMessage'
  | 'recordAttempt'
  | 'listMessages'
  | 'recordEndpointOutcome'
  | 'disableEndpoint'
  | 'claimAttempt'
  | 'failMessage'
  | 'markPoolLow'
  | 'markPoolLowSent'
  | 'clearPoolLow'
>

/** A program's pool in one snapshot (head and shards read together), or undefined without a pool or threshold. */
export type PoolSnapshot = {
  issuerId: string
  mode: Mode
  pool: number
  remaining: number
  threshold: number
}

export type WebhookSenderDeps = {
  store: WebhookSenderStore
  /** The Webhooks queue: deliveries, hops, replay pages. */
  queue: QueueSender
  http: WebhookHttp
  /** Opens a sealed secret (runtime/secret-box.ts). */
  openSecret: (sealed: string, endpointId: string) => Promise<string>
  /** The pool of a program with a `poolLowThreshold`, in one snapshot; undefined otherwise. */
  poolOf: (programId: string) => Promise<PoolSnapshot | undefined>
  /** Tells the issuer's owners that an endpoint was disabled after failing for days. */
  notifyDisabled: (endpoint: WebhookEndpointRecord) => Promise<void>
  /** The schedule's clock (ms): nextAttemptAt, failingSince, notBefore. Tests move it. */
  clock: () => number
  /** The real time (ms) of an attempt: its `webhook-timestamp`, never the injected clock. */
  realNow?: () => number
  /** Jitter of the retry schedule, [0, 1). */
  random?: () => number
  /** A monotonic clock (ms) for the endpoint-list cache. */
  monotonic?: () => number
  /** How long an issuer's endpoint list is trusted (ms); 0: read every time. */
  endpointsTtlMs?: number
}

/** An issuer's endpoints are read at most once a second per process: a change shows within that. */
export const ENDPOINTS_TTL_MS = 1_000
/** Messages a replay page sends. */
export const REPLAY_PAGE = 100
/** Opened secrets are kept this long per process (a KMS Decrypt per attempt is avoided). */
const SECRET_TTL_MS = 5 * 60_000
const _DAY_MS = 24 * 3600 * 1000
/**
 * How long an automatic attempt is claimed: longer than an attempt takes (15 s and a few writes),
 * shorter than the queue's visibility timeout (360 s), after which a dead sender's delivery returns.
 */
const _CLAIM_MS = 120_000
/** A succeeding endpoint's `lastSuccessAt` is written at most this often. */
const _LAST_SUCCESS_EVERY_MS = 60_000

export const isString = (v: unknown): v is string => typeof v === 'string' && v !== ''
export type Delivery = Extract<WebhookQueueMessage, { kind: 'delivery' }>
export type Replay = Extract<WebhookQueueMessage, { kind: 'replay' }>

/** The host of a URL, for logs and audit entries (never its path or query). */
export const hostOf = (url: string) => {
  try {
    return new URL(url).host
  } catch {
    return 'invalid-url'
  }
}

/**
 * What the sender's steps (fan-out, delivery, replay) share: the store, queue and clocks, the
 * per-process caches of endpoint lists and opened secrets, the queue send and the audit entry of
 * an endpoint the sender turns off.
 */
export const senderContext = (deps: WebhookSenderDeps) => {
  const { store, queue, http, clock } = deps
  const realNow = deps.realNow ?? Date.now
  const random = deps.random ?? Math.random
  const monotonic = deps.monotonic ?? (() => performance.now())
  const ttl = deps.endpointsTtlMs ?? ENDPOINTS_TTL_MS
  const iso = (ms: number) => new Date(ms).toISOString()

  // ---- caches (per process) ----
  const endpointCache = new Map<string, { at: number; list: Promise<WebhookEndpointRecord[]> }>()
  const endpointsOf = (issuerId: string) => {
    const hit = endpointCache.get(issuerId)
    if (hit !== undefined && monotonic() - hit.at < ttl) return hit.list
    const list = store.listEndpoints(issuerId)
    // A failed read is not kept.
    list.catch(() => endpointCache.delete(issuerId))
    if (endpointCache.size > 10_000) endpointCache.clear()
    endpointCache.set(issuerId, { at: monotonic(), list })
    return list
  }
  const secretCache = new Map<string, { at: number; plain: Promise<string> }>()
  const open = (sealed: string, endpointId: string) => {
    const key = `${endpointId} ${sealed}`
    const hit = secretCache.get(key)
    if (hit !== undefined && monotonic() - hit.at < SECRET_TTL_MS) return hit.plain
    const plain = deps.openSecret(sealed, endpointId)
    plain.catch(() => secretCache.delete(key))
    if (secretCache.size > 1_000) secretCache.clear()
    secretCache.set(key, { at: monotonic(), plain })
    return plain
  }

  const send = (messages: readonly { message: WebhookQueueMessage; delaySeconds?: number }[]) =>
    sendAll(
      queue,
      messages.map(
        ({ message, delaySeconds }, i): QueueEntry => ({
          id: `m${i}`,
          body: JSON.stringify(message),
          ...(delaySeconds ? { delaySeconds } : {}),
        }),
      ),
    )

  /** The audit entry of the sender turning an endpoint off: the host only, never the URL's path. */
  const disableAudit = (
    endpoint: WebhookEndpointRecord,
    reason: EndpointDisabledReason,
    failingSince?: string,
  ) =>
    auditEntry({
      issuerId: endpoint.issuerId,
      actor: WEBHOOK_SENDER,
      action: 'webhook.disable',
      target: { type: 'webhook_endpoint', id: endpoint.endpointId },
      now: clock(),
      details: {
        mode: endpoint.mode,
        host: hostOf(endpoint.url),
        reason,
        ...(failingSince === undefined ? {} : { failingSince }),
      },
    })

  /** Seconds to wait until `at` (ms), at most one SQS hop, at least 1. */
  const hopDelay = (at: number) =>
    Math.min(SQS_MAX_DELAY_SECONDS, Math.max(1, Math.ceil((at - clock()) / 1000)))

  return {
    deps,
    store,
    http,
    clock,
    realNow,
    random,
    iso,
    endpointsOf,
    open,
    send,
    disableAudit,
    hopDelay,
  }
}

export type SenderContext = ReturnType<typeof senderContext>
