import { createHmac, randomBytes } from 'node:crypto'

/**
 * The Standard Webhooks signature (https://www.standardwebhooks.com, spec/standard-webhooks.md):
 * `webhook-signature` is `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}`, keyed with
 * the base64-decoded part of a `whsec_` secret; several signatures are separated by spaces, which
 * is how a rotated endpoint signs with its old and new secret during the overlap.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_'
/** 24 random bytes (192 bits): the scheme asks for 24 to 64. */
const SECRET_BYTES = 24

export const generateWebhookSecret = () =>
  `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The HMAC key of a secret. Throws (never saying the secret) when it is not `whsec_` + base64. */
const keyOf = (secret: string) => {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : undefined
  if (!encoded || !BASE64.test(encoded)) {
    throw new Error('A webhook secret must be whsec_ followed by base64')
  }
  return Buffer.from(encoded, 'base64')
}

export type WebhookSignatureInput = {
  /** The message id (`webhook-id`): the same on every retry. */
  id: string
  /** The attempt's time in whole seconds since the epoch (`webhook-timestamp`). */
  timestamp: number
  /** The exact bytes sent, as a string (UTF-8 on the wire). */
  body: string
  /** The endpoint's live secrets: the current one, and the previous one during a rotation's overlap. */
  secrets: readonly string[]
}

export const signWebhook = ({ id, timestamp, body, secrets }: WebhookSignatureInput) => {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new Error('A webhook timestamp is whole seconds since the epoch')
  }
  if (secrets.length === 0) throw new Error('A webhook is signed with at least one secret')
  const signed = `${id}.${timestamp}.${body}`
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`)
    .join(' ')
}

export type WebhookHeaders = Record<
  'webhook-id' | 'webhook-timestamp' | 'webhook-signature',
  string
>

export const webhookHeaders = (input: WebhookSignatureInput): WebhookHeaders => ({
  'webhook-id': input.id,
  'webhook-timestamp': String(input.timestamp),
  'webhook-signature': signWebhook(input),
})
