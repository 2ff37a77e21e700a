import { randomBytes } from 'node:crypto'
import type { Mode } from '../domain/api-key'
import type { FieldError } from '../domain/errors'
import { BIDI_CONTROLS, CONTROL_CHARACTERS } from '../domain/text-rules'
import {
  type StoredSecret,
  WEBHOOK_EVENT_KINDS,
  WEBHOOK_LIMITS,
  type WebhookEventKind,
} from '../domain/webhooks'

/** What a webhook endpoint may be: its id, URL, kinds and description (domain/webhooks.ts limits). */

export const MODES: readonly Mode[] = ['TEST', 'LIVE']
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
export const hostOf = (url: string) => new URL(url).host

export const checkKinds = (
  value: unknown,
  errors: FieldError[],
): WebhookEventKind[] | undefined => {
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
export const checkDescription = (
  value: unknown,
  errors: FieldError[],
): string | null | undefined => {
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
