import { webhookHeaders } from '../domain/webhook-signature'
import {
  nextAttemptDelay,
  WEBHOOK_LIMITS,
  type WebhookAttempt,
  type WebhookEndpointRecord,
  type WebhookMessageRecord,
} from '../domain/webhooks'
import { logger } from '../runtime/logger'
import type { WebhookHttpResult } from '../runtime/safe-http'
import { type Delivery, hostOf, type SenderContext } from './webhook-sender-context'

const DAY_MS = 24 * 3600 * 1000
/**
 * How long an automatic attempt is claimed: longer than an attempt takes (15 s and a few writes),
 * shorter than the queue's visibility timeout (360 s), after which a dead sender's delivery returns.
 */
const CLAIM_MS = 120_000
/** A succeeding endpoint's `lastSuccessAt` is written at most this often. */
const LAST_SUCCESS_EVERY_MS = 60_000

/** What an attempt's answer does to its endpoint: success recorded, disabled when gone or failing. */
const endpointOutcomes = ({ deps, store, clock, disableAudit }: SenderContext) => {
  const delivered = async (
    d: Delivery,
    endpoint: WebhookEndpointRecord,
    attempt: WebhookAttempt,
    at: string,
  ) => {
    await store.recordAttempt(d.endpointId, d.messageId, attempt, { status: 'delivered' })
    // The endpoint is written only when that changes something worth a write (it bumps the
    // version a person's edit is conditioned on): it was failing, or its last success is a
    // minute old. A busy endpoint's lastSuccessAt is right to the minute.
    const last = endpoint.lastSuccessAt === undefined ? 0 : Date.parse(endpoint.lastSuccessAt)
    if (endpoint.failingSince !== undefined || clock() - last >= LAST_SUCCESS_EVERY_MS) {
      await store.recordEndpointOutcome(d.issuerId, d.endpointId, { kind: 'success', at })
    }
    return 'delivered'
  }

  const gone = async (
    d: Delivery,
    endpoint: WebhookEndpointRecord,
    attempt: WebhookAttempt,
    at: string,
  ) => {
    await store.recordAttempt(d.endpointId, d.messageId, attempt, { status: 'failed' })
    await store.disableEndpoint(d.issuerId, d.endpointId, {
      reason: 'gone',
      at,
      audit: disableAudit(endpoint, 'gone'),
    })
    logger.warn('Webhook endpoint answered 410 Gone: disabled', {
      endpointId: d.endpointId,
      host: hostOf(endpoint.url),
    })
    return 'gone'
  }

  /**
   * An endpoint failing for WEBHOOK_LIMITS.disableAfterFailingDays is disabled, on condition that
   * it is still failing since then (a success or a re-enable meanwhile wins), and its owners told.
   */
  const disableIfFailing = async (d: Delivery, endpoint: WebhookEndpointRecord, at: string) => {
    // Failing since the first failure after the last success: written once, then read.
    const after =
      endpoint.failingSince === undefined
        ? await store.recordEndpointOutcome(d.issuerId, d.endpointId, { kind: 'failure', at })
        : endpoint
    if (
      after === 'missing' ||
      !after.enabled ||
      after.failingSince === undefined ||
      clock() - Date.parse(after.failingSince) < WEBHOOK_LIMITS.disableAfterFailingDays * DAY_MS
    ) {
      return false
    }
    const disabled = await store.disableEndpoint(d.issuerId, d.endpointId, {
      reason: 'failing',
      at,
      failingSince: after.failingSince,
      audit: disableAudit(endpoint, 'failing', after.failingSince),
    })
    if (disabled !== 'done') return false
    // This message's next attempt (if any) finds the endpoint off and fails the message.
    logger.warn('Webhook endpoint failing for days: disabled', {
      endpointId: d.endpointId,
      failingSince: after.failingSince,
    })
    await deps
      .notifyDisabled({ ...after, enabled: false, disabledReason: 'failing', disabledAt: at })
      .catch((error) =>
        // The endpoint stays disabled and shows why in the console; the mail is not retried.
        logger.error('Webhook endpoint disabled, owners not e-mailed', {
          endpointId: d.endpointId,
          error: error instanceof Error ? error.name : 'unknown',
        }),
      )
    return true
  }

  return { delivered, gone, disableIfFailing }
}

/**
 * One `delivery` message: one attempt (core/webhook-sender.ts says when it runs, and what each
 * answer leads to), in steps: whether it is due, the signed post, and what its answer does.
 */
export const deliverySteps = (context: SenderContext) => {
  const { store, http, clock, realNow, random, iso, open, send, hopDelay } = context
  const { delivered, gone, disableIfFailing } = endpointOutcomes(context)
  /** The endpoint and message of a delivery that is due now, or what it comes to instead. */
  const due = async (d: Delivery) => {
    if (d.notBefore !== undefined && Date.parse(d.notBefore) > clock()) {
      await send([{ message: d, delaySeconds: hopDelay(Date.parse(d.notBefore)) }])
      return 'hop'
    }
    const [endpoint, message] = await Promise.all([
      store.getEndpoint(d.issuerId, d.endpointId),
      store.getMessage(d.endpointId, d.messageId),
    ])
    if (message === undefined) return 'no_message'
    if (d.trigger === 'auto') {
      // Only the attempt the message expects: a repeat, or one overtaken by a replay, does nothing.
      const expected =
        d.notBefore === undefined
          ? message.attempts.length === 0
          : message.nextAttemptAt === d.notBefore
      if (message.status !== 'pending' || !expected) return 'superseded'
    }
    if (endpoint === undefined || !endpoint.enabled || endpoint.mode !== message.mode) {
      await store.failMessage(d.endpointId, d.messageId)
      return 'endpoint_off'
    }
    if (d.trigger === 'auto') {
      // Two copies of this delivery at once: one attempt. A sender that dies holding the claim
      // leaves it to run out before this delivery comes back (the visibility timeout is longer).
      const claim = await store.claimAttempt(d.endpointId, d.messageId, {
        nextAttemptAt: d.notBefore,
        now: iso(clock()),
        until: iso(clock() + CLAIM_MS),
      })
      if (claim === 'taken') return 'superseded'
    }
    return { endpoint, message }
  }

  /** Signed afresh with the endpoint's live secrets, posted with the SSRF-safe client. */
  const post = async (
    d: Delivery,
    endpoint: WebhookEndpointRecord,
    message: WebhookMessageRecord,
  ): Promise<{ result: WebhookHttpResult; attempt: WebhookAttempt }> => {
    const now = clock()
    const live = endpoint.secrets.filter(
      (s) => s.expiresAt === undefined || Date.parse(s.expiresAt) > now,
    )
    const secrets = await Promise.all(live.map((s) => open(s.sealed, endpoint.endpointId)))
    const started = realNow()
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'virtual-share-grants-webhooks/1',
      ...webhookHeaders({
        id: message.messageId,
        timestamp: Math.floor(started / 1000),
        body: message.body,
        secrets,
      }),
    }
    const result = await http.post(endpoint.url, headers, message.body)
    const attempt: WebhookAttempt = {
      at: iso(started),
      ...(result.status === undefined ? {} : { status: result.status }),
      ...(result.error === undefined ? {} : { error: result.error }),
      latencyMs: result.latencyMs,
      ...(result.response === undefined ? {} : { response: result.response }),
      trigger: d.trigger,
    }
    return { result, attempt }
  }

  /** The retry schedule (Retry-After honoured): the next attempt, or the message failed. */
  const failed = async (
    d: Delivery,
    endpoint: WebhookEndpointRecord,
    { result, attempt }: { result: WebhookHttpResult; attempt: WebhookAttempt },
    at: string,
  ) => {
    const wait = nextAttemptDelay(d.attempt + 1, random, result.retryAfterSeconds)
    const nextAt = wait === undefined ? undefined : iso(clock() + wait)
    if (nextAt !== undefined) {
      // Sent before the attempt is recorded: see core/webhook-sender.ts.
      const next: Delivery = {
        kind: 'delivery',
        issuerId: d.issuerId,
        endpointId: d.endpointId,
        messageId: d.messageId,
        attempt: d.attempt + 1,
        trigger: 'auto',
        notBefore: nextAt,
      }
      await send([{ message: next, delaySeconds: hopDelay(Date.parse(nextAt)) }])
    }
    await store.recordAttempt(
      d.endpointId,
      d.messageId,
      attempt,
      nextAt === undefined ? { status: 'failed' } : { status: 'pending', nextAttemptAt: nextAt },
    )
    if (await disableIfFailing(d, endpoint, at)) return 'disabled'
    return nextAt === undefined ? 'failed' : 'retry'
  }

  return async (d: Delivery) => {
    const target = await due(d)
    if (typeof target === 'string') return target
    const posted = await post(d, target.endpoint, target.message)
    const at = iso(clock())
    const status = posted.result.status
    if (status !== undefined && status >= 200 && status < 300) {
      return delivered(d, target.endpoint, posted.attempt, at)
    }
    if (status === 410) return gone(d, target.endpoint, posted.attempt, at)
    return failed(d, target.endpoint, posted, at)
  }
}
