import { type Role, roleAllows } from '../domain/people'
import type {
  WebhookAttempt,
  WebhookEndpointRecord,
  WebhookMessageRecord,
} from '../domain/webhooks'

/**
 * An endpoint and a delivery-log message as the management API (and the console) shows them.
 * Built field by field, so nothing the record gains later (a sealed secret, a version) leaks: a
 * secret appears only in the create and rotate answers, which add it themselves.
 */
export type EndpointView = {
  endpointId: string
  mode: WebhookEndpointRecord['mode']
  url: string
  description?: string
  kinds: string[]
  enabled: boolean
  disabledReason?: string
  disabledAt?: string
  failingSince?: string
  lastSuccessAt?: string
  createdAt: string
  updatedAt: string
  /** When the current secret was made by a rotation (absent: the endpoint's first secret). */
  secretRotatedAt?: string
  /** Until when the previous secret still signs beside the current one. */
  previousSecretExpiresAt?: string
}

export type MessageView = {
  messageId: string
  eventId: string
  type: string
  status: WebhookMessageRecord['status']
  createdAt: string
  nextAttemptAt?: string
  /** The body as sent, parsed. */
  payload: unknown
  attempts: WebhookAttempt[]
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>

/** What each query value of an endpoint's URL shows to a viewer. */
export const URL_VALUE_MASK = '****'

/**
 * The URL with every query value masked and the parameter names kept: a query often carries the
 * receiver's token. A part without `=` may be the token itself, so it is masked whole. No
 * user name or password needs masking: webhookUrlProblem refuses them (and fragments).
 */
export const maskedUrl = (url: string) => {
  const at = url.indexOf('?')
  if (at < 0) return url
  const parts = url
    .slice(at + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=')
      if (eq >= 0) return `${part.slice(0, eq)}=${URL_VALUE_MASK}`
      return part === '' ? part : URL_VALUE_MASK
    })
  return `${url.slice(0, at)}?${parts.join('&')}`
}

/**
 * The endpoint as `role` may see it: the whole URL for those who may change it (admins and
 * owners), its query values masked for viewers.
 */
export const toEndpointView = (
  endpoint: WebhookEndpointRecord,
  now: number,
  role: Role,
): EndpointView => {
  const [current, ...previous] = endpoint.secrets
  const overlap = previous
    .map((s) => s.expiresAt)
    .filter((at): at is string => at !== undefined && Date.parse(at) > now)
    .sort()
  const rotatedAt =
    current !== undefined && current.createdAt !== endpoint.createdAt
      ? current.createdAt
      : undefined
  return {
    endpointId: endpoint.endpointId,
    mode: endpoint.mode,
    url: roleAllows(role, 'admin') ? endpoint.url : maskedUrl(endpoint.url),
    ...optional('description', endpoint.description),
    kinds: [...endpoint.kinds],
    enabled: endpoint.enabled,
    ...optional('disabledReason', endpoint.disabledReason),
    ...optional('disabledAt', endpoint.disabledAt),
    ...optional('failingSince', endpoint.failingSince),
    ...optional('lastSuccessAt', endpoint.lastSuccessAt),
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
    ...optional('secretRotatedAt', rotatedAt),
    ...optional('previousSecretExpiresAt', overlap[overlap.length - 1]),
  }
}

const parsed = (body: string): unknown => {
  try {
    return JSON.parse(body)
  } catch {
    return body
  }
}

export const toMessageView = (message: WebhookMessageRecord): MessageView => ({
  messageId: message.messageId,
  eventId: message.eventId,
  type: message.type,
  status: message.status,
  createdAt: message.createdAt,
  ...optional('nextAttemptAt', message.nextAttemptAt),
  payload: parsed(message.body),
  attempts: message.attempts.map((a) => ({
    at: a.at,
    ...optional('status', a.status),
    ...optional('error', a.error),
    latencyMs: a.latencyMs,
    ...optional('response', a.response),
    trigger: a.trigger,
  })),
})
