import type { Mode } from '../domain/api-key'
import {
  type FieldError,
  ValidationFailed,
  WebhookEndpointLimit,
  WebhookEndpointNotFound,
} from '../domain/errors'
import { generateWebhookSecret } from '../domain/webhook-signature'
import { endpointKey, WEBHOOK_LIMITS, type WebhookEndpointRecord } from '../domain/webhooks'
import {
  type EndpointChange,
  type EndpointInput,
  type WebhookCaller,
  type WebhookEndpointContext,
  type WebhookEndpointsDeps,
  webhookEndpointContext,
} from './webhook-endpoint-context'
import {
  checkDescription,
  checkKinds,
  hostOf,
  MODES,
  newWebhookEndpointId,
  webhookUrlProblem,
} from './webhook-endpoint-rules'
import { messageActions } from './webhook-messages'

/**
 * The management API's use cases of an issuer's webhook endpoints (issue 21): the rules on what
 * an endpoint may be (functions/domain/webhooks.ts limits), its secret (generated here, sealed by
 * the secret box, shown once), rotation, the delivery log, a test event and replays. Transport
 * free: the routes (functions/http/routes/manage/webhook-*.route.ts) answer what these report.
 * Every write has its audit entry; no entry ever holds a secret or a whole URL (its host only:
 * a URL may carry a token in its path or query).
 */

export type {
  EndpointChange,
  EndpointInput,
  WebhookCaller,
  WebhookEndpointsDeps,
} from './webhook-endpoint-context'
export {
  liveSecrets,
  newWebhookEndpointId,
  WEBHOOK_MESSAGE_PAGE,
  webhookUrlProblem,
} from './webhook-endpoint-rules'

/** An issuer's endpoints: list, read, create, delete. */
const endpointActions = ({
  deps,
  store,
  clock,
  audit,
  requireEndpoint,
}: WebhookEndpointContext) => ({
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
})

/** An endpoint's next version, written on the version read: a change, a new secret. */
const endpointChanges = ({ deps, audit, replaceWith }: WebhookEndpointContext) => ({
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
})

export const makeWebhookEndpoints = (deps: WebhookEndpointsDeps) => {
  const context = webhookEndpointContext(deps)
  return {
    ...endpointActions(context),
    ...endpointChanges(context),
    ...messageActions(context),
  }
}

export type WebhookEndpoints = ReturnType<typeof makeWebhookEndpoints>
