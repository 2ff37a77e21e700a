import { auditEntry } from '../domain/audit-entry'
import { WebhookEndpointDisabled, WebhookEndpointNotFound } from '../domain/errors'
import type { Actor, AuditEntry } from '../domain/people'
import {
  WEBHOOK_ENDPOINT_ID,
  type WebhookEndpointRecord,
  type WebhookQueueMessage,
} from '../domain/webhooks'
import { LOST_RACE, optimisticUpdate } from '../runtime/optimistic-update'
import { QueueRefused, type QueueSender, sendAll } from '../runtime/queue-sender'
import * as RETRY from '../runtime/retry-policies'
import type { SecretBox } from '../runtime/secret-box'
import { busy, throttled } from '../stores/store-errors'
import type { WebhookEndpointStore, WebhookMessageStore } from '../stores/webhooks.store'

export type WebhookEndpointsDeps = {
  store: WebhookEndpointStore & WebhookMessageStore
  /** Seals a new secret (create, rotate); only those use cases ask for it. */
  box: () => SecretBox
  /** The Webhooks queue (test, replays); only those use cases ask for it. */
  queue: () => QueueSender
  /** Writes an audit entry on its own (test, replays: no store change to put it beside). */
  audit: (entry: AuditEntry, options: { signal?: AbortSignal }) => Promise<void>
  clock: () => number
  /** Whether a `cursor` is one the store's listing made (a bad one is the caller's mistake: 400). */
  isCursor: (cursor: string) => boolean
}

/** Who asks, for which issuer, within which deadline. */
export type WebhookCaller = {
  issuerId: string
  actor: Actor
  requestId?: string
  signal?: AbortSignal
}

export type EndpointInput = {
  url?: unknown
  mode?: unknown
  kinds?: unknown
  description?: unknown
}
export type EndpointChange = {
  url?: unknown
  kinds?: unknown
  enabled?: unknown
  description?: unknown
}

/**
 * What the endpoint and message use cases (core/webhook-endpoints.ts) share: the audit entry of a
 * change, the issuer-scoped look-ups, the queue, and the read-decide-write of an endpoint.
 */
export const webhookEndpointContext = (deps: WebhookEndpointsDeps) => {
  const { store, clock } = deps

  const audit = (
    caller: WebhookCaller,
    action: string,
    endpointId: string,
    details: AuditEntry['details'],
    now: number,
  ) =>
    auditEntry({
      issuerId: caller.issuerId,
      actor: caller.actor,
      action,
      target: { type: 'webhook_endpoint', id: endpointId },
      now,
      requestId: caller.requestId,
      details,
    })

  const requireEndpoint = async (caller: WebhookCaller, endpointId: string) => {
    if (!WEBHOOK_ENDPOINT_ID.test(endpointId)) throw new WebhookEndpointNotFound(endpointId)
    const endpoint = await store.getEndpoint(caller.issuerId, endpointId, {
      signal: caller.signal,
    })
    if (!endpoint) throw new WebhookEndpointNotFound(endpointId)
    return endpoint
  }

  /** A test or a replay is refused on a disabled endpoint: the sender would send it nothing. */
  const requireEnabled = async (caller: WebhookCaller, endpointId: string) => {
    const endpoint = await requireEndpoint(caller, endpointId)
    if (!endpoint.enabled) throw new WebhookEndpointDisabled(endpointId)
    return endpoint
  }

  const send = async (caller: WebhookCaller, message: WebhookQueueMessage) => {
    try {
      await sendAll(deps.queue(), [{ id: '0', body: JSON.stringify(message) }], {
        ...(caller.signal ? { signal: caller.signal } : {}),
      })
    } catch (error) {
      if (error instanceof QueueRefused) throw throttled('the Webhooks queue refused the message')
      throw error
    }
  }

  /**
   * Reads the endpoint, makes its next version with `change` and writes it on condition that no
   * other change came between (re-reading and deciding again when one did).
   */
  const replaceWith = async (
    caller: WebhookCaller,
    endpointId: string,
    change: (current: WebhookEndpointRecord, now: number) => Promise<WebhookEndpointRecord>,
    auditOf: (next: WebhookEndpointRecord, current: WebhookEndpointRecord) => AuditEntry,
  ) => {
    const started = clock()
    return optimisticUpdate(undefined, {
      policy: RETRY.managementRace,
      signal: caller.signal,
      // Each try reads the endpoint itself.
      reread: async () => undefined,
      exhausted: () => {
        throw busy(
          RETRY.managementRace.attempts,
          clock() - started,
          `Changing webhook endpoint ${endpointId}`,
        )
      },
      attempt: async () => {
        const current = await requireEndpoint(caller, endpointId)
        const next = await change(current, clock())
        const outcome = await store.replaceEndpoint(
          { ...next, version: current.version + 1 },
          current.version,
          auditOf(next, current),
          { signal: caller.signal },
        )
        if (outcome === 'done') return { ...next, version: current.version + 1 }
        if (outcome === 'missing') throw new WebhookEndpointNotFound(endpointId)
        return LOST_RACE
      },
    })
  }

  return { deps, store, clock, audit, requireEndpoint, requireEnabled, send, replaceWith }
}

export type WebhookEndpointContext = ReturnType<typeof webhookEndpointContext>
