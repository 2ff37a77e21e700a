import { WEBHOOK_LIMITS, type WebhookEndpointRecord } from '../domain/webhooks'
import type { OutgoingMail } from './mailer'

/**
 * The e-mail to an issuer's owners when the sender disabled one of its endpoints after every
 * attempt failed for WEBHOOK_LIMITS.disableAfterFailingDays days. Plain text, nothing secret: the
 * endpoint's id, mode and host (not its full URL: a path or query may carry a receiver's token),
 * since when it failed, and where to look and turn it on again.
 */
export const webhookDisabledMail = (
  to: string,
  endpoint: Pick<
    WebhookEndpointRecord,
    'endpointId' | 'issuerId' | 'mode' | 'url' | 'failingSince' | 'disabledAt'
  >,
  consoleUrl: string | undefined,
): OutgoingMail => {
  let host = 'an invalid address'
  try {
    host = new URL(endpoint.url).host
  } catch {
    // The URL was checked when it was saved; say nothing more than that it is unusable.
  }
  const days = WEBHOOK_LIMITS.disableAfterFailingDays
  const lines = [
    `Your ${endpoint.mode} webhook endpoint ${endpoint.endpointId} (${host}) has been disabled:`,
    `every delivery to it has failed for ${days} days${
      endpoint.failingSince === undefined ? '' : ` (since ${endpoint.failingSince})`
    }.`,
    '',
    'No more events are sent to it. Its delivery log shows each attempt and what the receiver',
    'answered. Once it works again, enable it and replay the messages it missed (every message',
    'since a time, kept 30 days).',
    '',
    ...(consoleUrl === undefined
      ? [`Issuer ${endpoint.issuerId}.`]
      : [
          `See it: ${consoleUrl.replace(/\/+$/, '')}/${encodeURIComponent(endpoint.issuerId)}/${endpoint.mode.toLowerCase()}/webhooks`,
        ]),
  ]
  return {
    to,
    subject: `Webhook endpoint disabled after ${days} days of failures (${host})`,
    text: lines.join('\n'),
  }
}
