import { randomBytes } from 'node:crypto'
import type { Mode } from '../domain/api-key'
import {
  type FieldError,
  ValidationFailed,
  WebhookEndpointDisabled,
  WebhookEndpointLimit,
  WebhookEndpointNotFound,
  WebhookMessageNotFound,
} from '../domain/errors'
import type { Actor, AuditEntry } from '../domain/people'
import { BIDI_CONTROLS, CONTROL_CHARACTERS } from '../domain/text-rules'
import { generateWebhookSecret } from '../domain/webhook-signature'
import {
  endpointKey,
  messageKey,
  payloadOf,
  type StoredSecret,
  WEBHOOK_ENDPOINT_ID,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_LIMITS,
  WEBHOOK_MESSAGE_ID,
  WEBHOOK_TEST_KIND,
  type WebhookEndpointRecord,
  type WebhookEvent,
  type WebhookEventKind,
  type WebhookMessageRecord,
  type WebhookQueueMessage,
  webhookEventId,
  webhookMessageId,
} from '../domain/webhooks'
import { LOST_RACE, optimisticUpdate } from '../runtime/optimistic-update'
import { QueueRefused, type QueueSender, sendAll } from '../runtime/queue-sender'
import { RETRY } from '../runtime/retry-policies'
import type { SecretBox } from '../runtime/secret-box'
import { auditEntry } from '../stores/audit'
import { busy, throttled } from '../stores/store-errors'
import type { WebhookEndpointStore, WebhookMessageStore } from '../stores/webhooks.store'

/**
 * The management API's use cases of an issuer's webhook endpoints (issue 21): the rules on what
 * an endpoint may be (functions/domain/webhooks.ts limits), its secret (generated here, sealed by
 * the secret box, shown once), rotation, the delivery log, a test event and replays. Transport
 * free: the routes (functions/http/routes/manage/webhook-*.route.ts) answer what these report.
 * Every write has its audit entry; no entry ever holds a secret or a whole URL (its host only:
 * a URL may carry a token in its path or query).
 */

const MODES: readonly Mode[] = ['TEST', 'LIVE']
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** `we_` + 26 lower-case base32 characters of 130 random bits. */
export const newWebhookEndpointId = () => {
  const bytes = randomBytes(17)
  let bits = 0
  let value = 0
  let out = ''
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff
    bits += 8
    while (bits >= 5 && out.length < 26) {
      out += BASE32[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  return `we_${out}`
}

/** The messages page: `limit` 1 to max, default when absent. */
export const WEBHOOK_MESSAGE_PAGE = { default: 20, max: 100 } as const

/** A URL's problem as the rest of a sentence, or undefined: what an endpoint may point at. */
export const webhookUrlProblem = (value: unknown, mode: Mode): string | undefined => {
  if (typeof value !== 'string' || value.trim() === '') return 'must be an absolute http(s) URL'
  if (value.length > WEBHOOK_LIMITS.urlMaxLength) {
    return `must be at most ${WEBHOOK_LIMITS.urlMaxLength.toLocaleString('en')} characters`
  }
  if (/\s/.test(value)) return 'must not contain spaces'
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an absolute http(s) URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must be an http:// or https:// URL (not ${url.protocol.replace(':', '')})`
  }
  if (url.hostname === '') return 'must name a host'
  if (url.username !== '' || url.password !== '') {
    return 'must not contain a user name or password (put a token in the path or query, or verify the signature)'
  }
  if (url.hash !== '') return 'must not contain a fragment (#...): it is never sent'
  if (mode === 'LIVE' && url.protocol !== 'https:') return 'must be https:// for a LIVE endpoint'
  return undefined
}

/** The host of a URL, for audit entries (never the path or query: they may hold a token). */
const hostOf = (url: string) => new URL(url).host

const checkKinds = (value: unknown, errors: FieldError[]): WebhookEventKind[] | undefined => {
  const rule = `must be a non-empty list of event kinds: ${WEBHOOK_EVENT_KINDS.join(', ')}`
  if (!Array.isArray(value) || value.length === 0) {
    errors.push({ field: 'kinds', message: rule })
    return undefined
  }
  const seen = new Set<string>()
  let ok = true
  value.forEach((kind, i) => {
    if (typeof kind !== 'string' || !(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind)) {
      errors.push({
        field: `kinds[${i}]`,
        message: `unknown event kind ${JSON.stringify(kind)}; the kinds are ${WEBHOOK_EVENT_KINDS.join(', ')}`,
      })
      ok = false
    } else if (seen.has(kind)) {
      errors.push({ field: `kinds[${i}]`, message: `${kind} is listed twice` })
      ok = false
    } else seen.add(kind)
  })
  return ok ? (value as WebhookEventKind[]) : undefined
}

/** `null` or `""`: no description (on a PATCH: remove it); else trimmed text up to the limit. */
const checkDescription = (value: unknown, errors: FieldError[]): string | null | undefined => {
  if (value === undefined) return undefined
  if (value === null || value === '') return null
  const max = WEBHOOK_LIMITS.descriptionMaxLength
  if (typeof value !== 'string') {
    errors.push({ field: 'description', message: 'must be a string, or null for none' })
    return undefined
  }
  const text = value.trim()
  if ([...text].length > max) {
    errors.push({ field: 'description', message: `must be at most ${max} characters` })
    return undefined
  }
  // The names' rule (text-rules.ts): every line break (NEL, U+2028 too), control and bidi control.
  if (CONTROL_CHARACTERS.test(text) || BIDI_CONTROLS.test(text)) {
    errors.push({
      field: 'description',
      message: 'must be one line without control characters',
    })
    return undefined
  }
  return text === '' ? null : text
}

/** The live secrets of an endpoint at `now`: the current one, and rotated-out ones until they expire. */
export const liveSecrets = (secrets: readonly StoredSecret[], now: number) =>
  secrets.filter((s, i) => i === 0 || (s.expiresAt !== undefined && Date.parse(s.expiresAt) > now))

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

export const makeWebhookEndpoints = (deps: WebhookEndpointsDeps) => {
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

  return {
    /** The issuer's endpoints, oldest first; `mode` (`TEST`/`LIVE`) filters. */
    async list(caller: WebhookCaller, mode?: string) {
      if (mode !== undefined && !MODES.includes(mode as Mode)) {
        throw new ValidationFailed([{ field: 'mode', message: 'must be TEST or LIVE' }])
      }
      const endpoints = await store.listEndpoints(caller.issuerId, { signal: caller.signal })
      return mode === undefined ? endpoints : endpoints.filter((e) => e.mode === mode)
    },

    get: requireEndpoint,

    /** A new endpoint and its secret (returned once: only its sealed form is stored). */
    async create(caller: WebhookCaller, input: EndpointInput) {
      const errors: FieldError[] = []
      const mode = MODES.includes(input.mode as Mode) ? (input.mode as Mode) : undefined
      if (!mode) errors.push({ field: 'mode', message: 'must be TEST or LIVE' })
      const urlProblem = webhookUrlProblem(input.url, mode ?? 'TEST')
      if (urlProblem) errors.push({ field: 'url', message: urlProblem })
      const kinds = checkKinds(input.kinds, errors)
      const description = checkDescription(input.description, errors)
      if (errors.length > 0 || !mode || !kinds) throw new ValidationFailed(errors)
      const url = input.url as string

      const existing = await store.listEndpoints(caller.issuerId, { signal: caller.signal })
      if (existing.filter((e) => e.mode === mode).length >= WEBHOOK_LIMITS.endpointsPerMode) {
        throw new WebhookEndpointLimit(mode, WEBHOOK_LIMITS.endpointsPerMode)
      }
      const now = clock()
      const at = new Date(now).toISOString()
      const endpointId = newWebhookEndpointId()
      const secret = generateWebhookSecret()
      const sealed = await deps.box().seal(secret, { endpointId })
      const record: WebhookEndpointRecord = {
        ...endpointKey(caller.issuerId, endpointId),
        endpointId,
        issuerId: caller.issuerId,
        mode,
        url,
        ...(description ? { description } : {}),
        kinds: [...kinds],
        enabled: true,
        secrets: [{ sealed, createdAt: at }],
        createdAt: at,
        updatedAt: at,
        version: 1,
      }
      const outcome = await store.createEndpoint(
        record,
        audit(
          caller,
          'webhook.create',
          endpointId,
          { mode, host: hostOf(url), kinds: kinds.join(',') },
          now,
        ),
        WEBHOOK_LIMITS.endpointsPerMode,
        { signal: caller.signal },
      )
      // Another create took the last place after the count above.
      if (outcome === 'limit') throw new WebhookEndpointLimit(mode, WEBHOOK_LIMITS.endpointsPerMode)
      // 130 random bits: a clash is a bug, not a retry.
      if (outcome === 'exists') throw new Error(`Webhook endpoint id ${endpointId} clashed`)
      return { endpoint: record, secret }
    },

    /** Changes the URL, kinds, description or enabled; enabling clears why it was disabled. */
    async update(caller: WebhookCaller, endpointId: string, input: EndpointChange) {
      // The rules that need no read first: bad input is refused before anything is read.
      const errors: FieldError[] = []
      const kinds = input.kinds === undefined ? undefined : checkKinds(input.kinds, errors)
      const description = checkDescription(input.description, errors)
      if (input.enabled !== undefined && typeof input.enabled !== 'boolean') {
        errors.push({ field: 'enabled', message: 'must be true or false' })
      }
      if (input.url !== undefined) {
        // The mode's rule is checked against the endpoint below; the shape here.
        const problem = webhookUrlProblem(input.url, 'TEST')
        if (problem) errors.push({ field: 'url', message: problem })
      }
      if (
        errors.length === 0 &&
        input.url === undefined &&
        input.kinds === undefined &&
        input.enabled === undefined &&
        input.description === undefined
      ) {
        errors.push({
          field: 'body',
          message: 'must set at least one of url, kinds, enabled, description',
        })
      }
      if (errors.length > 0) throw new ValidationFailed(errors)
      return replaceWith(
        caller,
        endpointId,
        async (current, now) => {
          if (input.url !== undefined) {
            const problem = webhookUrlProblem(input.url, current.mode)
            if (problem) throw new ValidationFailed([{ field: 'url', message: problem }])
          }
          const next: WebhookEndpointRecord = { ...current, updatedAt: new Date(now).toISOString() }
          if (input.url !== undefined) next.url = input.url as string
          if (kinds) next.kinds = [...kinds]
          if (description === null) delete next.description
          else if (description !== undefined) next.description = description
          if (input.enabled === true && !current.enabled) {
            next.enabled = true
            delete next.disabledReason
            delete next.disabledAt
            delete next.failingSince
          } else if (input.enabled === false && current.enabled) {
            next.enabled = false
            next.disabledReason = 'manual'
            next.disabledAt = next.updatedAt
          }
          return next
        },
        (next, current) =>
          audit(
            caller,
            'webhook.update',
            endpointId,
            {
              mode: current.mode,
              host: hostOf(next.url),
              ...(input.url === undefined ? {} : { urlChanged: next.url !== current.url }),
              ...(kinds ? { kinds: kinds.join(',') } : {}),
              ...(input.enabled === undefined ? {} : { enabled: next.enabled }),
              ...(description === undefined
                ? {}
                : { description: description === null ? 'removed' : 'changed' }),
            },
            Date.parse(next.updatedAt),
          ),
      )
    },

    async remove(caller: WebhookCaller, endpointId: string) {
      const current = await requireEndpoint(caller, endpointId)
      const outcome = await store.deleteEndpoint(
        current,
        audit(
          caller,
          'webhook.delete',
          endpointId,
          { mode: current.mode, host: hostOf(current.url) },
          clock(),
        ),
        { signal: caller.signal },
      )
      if (outcome === 'missing') throw new WebhookEndpointNotFound(endpointId)
    },

    /**
     * A new secret, first; the one it replaces keeps signing beside it for
     * WEBHOOK_LIMITS.rotationOverlapHours; secrets already past their overlap are dropped.
     */
    async rotate(caller: WebhookCaller, endpointId: string) {
      const secret = generateWebhookSecret()
      const sealed = await deps.box().seal(secret, { endpointId })
      const endpoint = await replaceWith(
        caller,
        endpointId,
        async (current, now) => {
          const at = new Date(now).toISOString()
          const expiresAt = new Date(
            now + WEBHOOK_LIMITS.rotationOverlapHours * 3600_000,
          ).toISOString()
          const [previous, ...older] = current.secrets
          return {
            ...current,
            secrets: [
              { sealed, createdAt: at },
              ...(previous ? [{ ...previous, expiresAt }] : []),
              ...older.filter((s) => s.expiresAt !== undefined && Date.parse(s.expiresAt) > now),
            ],
            updatedAt: at,
          }
        },
        (next) =>
          audit(
            caller,
            'webhook.rotate',
            endpointId,
            { previousSecretExpiresAt: next.secrets[1]?.expiresAt ?? null },
            Date.parse(next.updatedAt),
          ),
      )
      return { endpoint, secret }
    },

    /** A `webhook.test` message, delivered as any other (the sender signs it): its id. */
    async sendTest(caller: WebhookCaller, endpointId: string) {
      const endpoint = await requireEnabled(caller, endpointId)
      const now = clock()
      const at = new Date(now).toISOString()
      const event: WebhookEvent = {
        eventId: webhookEventId('webhook.test', endpointId, at, randomBytes(8).toString('hex')),
        type: WEBHOOK_TEST_KIND,
        issuerId: caller.issuerId,
        mode: endpoint.mode,
        occurredAt: at,
        data: { endpointId, message: 'A test event, sent from the management API.' },
      }
      const messageId = webhookMessageId(event, endpointId)
      const message: WebhookMessageRecord = {
        ...messageKey(endpointId, messageId),
        messageId,
        endpointId,
        issuerId: caller.issuerId,
        mode: endpoint.mode,
        eventId: event.eventId,
        type: event.type,
        body: JSON.stringify(payloadOf(event)),
        status: 'pending',
        attempts: [],
        nextAttemptAt: at,
        createdAt: at,
        purgeAt: Math.floor(now / 1000) + WEBHOOK_LIMITS.keepDays * 86_400,
      }
      await store.putMessage(message, { signal: caller.signal })
      await deps.audit(
        audit(caller, 'webhook.test', endpointId, { mode: endpoint.mode, messageId }, now),
        { signal: caller.signal },
      )
      await send(caller, {
        kind: 'delivery',
        issuerId: caller.issuerId,
        endpointId,
        messageId,
        attempt: 0,
        trigger: 'test',
      })
      return messageId
    },

    /** The delivery log, newest first, a page at a time. */
    async messages(
      caller: WebhookCaller,
      endpointId: string,
      query: { limit?: string | undefined; cursor?: string | undefined },
    ) {
      let limit: number = WEBHOOK_MESSAGE_PAGE.default
      if (query.limit !== undefined) {
        limit = Number(query.limit)
        if (!/^\d+$/.test(query.limit) || limit < 1 || limit > WEBHOOK_MESSAGE_PAGE.max) {
          throw new ValidationFailed([
            {
              field: 'limit',
              message: `must be a whole number from 1 to ${WEBHOOK_MESSAGE_PAGE.max}`,
            },
          ])
        }
      }
      if (query.cursor !== undefined && !deps.isCursor(query.cursor)) {
        throw new ValidationFailed([{ field: 'cursor', message: 'must be the `next` of a page' }])
      }
      await requireEndpoint(caller, endpointId)
      return store.listMessages(
        endpointId,
        { limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) },
        { signal: caller.signal },
      )
    },

    /** One message sent again, with its id (`webhook-id`) unchanged. */
    async replayMessage(caller: WebhookCaller, endpointId: string, messageId: string) {
      const endpoint = await requireEnabled(caller, endpointId)
      if (!WEBHOOK_MESSAGE_ID.test(messageId)) throw new WebhookMessageNotFound(messageId)
      const message = await store.getMessage(endpointId, messageId, { signal: caller.signal })
      if (!message) throw new WebhookMessageNotFound(messageId)
      await deps.audit(
        audit(caller, 'webhook.replay', endpointId, { mode: endpoint.mode, messageId }, clock()),
        { signal: caller.signal },
      )
      await send(caller, {
        kind: 'delivery',
        issuerId: caller.issuerId,
        endpointId,
        messageId,
        attempt: 0,
        trigger: 'replay',
      })
      return messageId
    },

    /**
     * Every message since `since` sent again, in the background (the sender pages through them);
     * its answer is the start used: no earlier than the log keeps (WEBHOOK_LIMITS.keepDays).
     */
    async replaySince(caller: WebhookCaller, endpointId: string, input: { since?: unknown }) {
      const now = clock()
      const time =
        typeof input.since === 'string' &&
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(input.since)
          ? Date.parse(input.since)
          : Number.NaN
      if (Number.isNaN(time) || time > now) {
        throw new ValidationFailed([
          {
            field: 'since',
            message:
              'must be a time in the past, ISO 8601 with its offset (such as 2026-11-26T09:00:00Z)',
          },
        ])
      }
      const endpoint = await requireEnabled(caller, endpointId)
      // Only kept messages replay: an older start would promise what the log no longer holds.
      const kept = now - WEBHOOK_LIMITS.keepDays * 86_400_000
      const since = new Date(Math.max(time, kept)).toISOString()
      await deps.audit(
        audit(caller, 'webhook.replay', endpointId, { mode: endpoint.mode, since }, now),
        { signal: caller.signal },
      )
      await send(caller, { kind: 'replay', issuerId: caller.issuerId, endpointId, since })
      return since
    },
  }
}

export type WebhookEndpoints = ReturnType<typeof makeWebhookEndpoints>
