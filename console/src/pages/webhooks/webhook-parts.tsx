import { WEBHOOK_EVENT_KINDS, WEBHOOK_LIMITS } from '../../../../functions/domain/webhook-rules'
import { ApiError, type WebhookEndpoint, type WebhookEventKind } from '../../api'
import { StatusBadge } from '../../ui'
import { errorText, Time } from '../../ui-format'
import type { Errors, Explained } from '../../ui-forms'
import { ShownOnce } from '../../ui-pages'

/**
 * Webhooks (issue 21) of one issuer in one mode: the endpoints that receive its events, signed
 * with the Standard Webhooks scheme; for owners and admins, adding one (its signing secret shown
 * once), rotating its secret, enabling, disabling, changing, deleting and testing it. Each
 * endpoint's page has its delivery log: every message newest first, each with every attempt,
 * replayed one at a time or all since a time, read again every few seconds only while a message
 * still waits for an attempt. Viewers see all of it without the buttons (the API refuses them).
 */

/** What each event kind means: a record by the server's own type, so a new kind needs its words. */
export const KIND_MEANINGS: Record<WebhookEventKind, string> = {
  'grant.created': 'A grant was made (before its offer is sent).',
  'grant.offered': 'The recipient identified and may now accept the offer.',
  'grant.accepted': 'The recipient accepted the shares.',
  'grant.rejected': 'The recipient declined, or a rule refused them (with the reason).',
  'grant.expired': 'The offer window ended without an answer.',
  'grant.canceled': 'The issuer or an API key canceled the grant.',
  'grant.delivery_failed': 'The offer e-mail bounced, was reported as spam, or failed.',
  'batch.completed': 'A batch of send to many finished or was canceled.',
  'program.pool_low': "A program's remaining pool fell to its pool-low threshold.",
  'program.value_changed': "A value of a program's share was set.",
}
export const KINDS: readonly WebhookEventKind[] = WEBHOOK_EVENT_KINDS

// The service's rules (functions/domain/webhook-rules.ts), said to the person.
export const OVERLAP_HOURS = WEBHOOK_LIMITS.rotationOverlapHours
const FAILING_DAYS = WEBHOOK_LIMITS.disableAfterFailingDays
export const KEEP_DAYS = WEBHOOK_LIMITS.keepDays
export const DESCRIPTION_MAX = WEBHOOK_LIMITS.descriptionMaxLength

/** Why an endpoint receives nothing, in words. */
export const disabledText = (endpoint: WebhookEndpoint) =>
  endpoint.disabledReason === 'gone'
    ? 'the receiver answered 410 Gone'
    : endpoint.disabledReason === 'failing'
      ? `every attempt failed for ${FAILING_DAYS} days`
      : 'a person disabled it'

export const EndpointState = ({
  endpoint,
  failing = true,
}: {
  endpoint: WebhookEndpoint
  /** Say since when it fails (the endpoint's page has a fact of its own for it). */
  failing?: boolean
}) =>
  endpoint.enabled ? (
    <>
      <StatusBadge status="enabled" />
      {failing && endpoint.failingSince ? (
        <div class="hint failure">
          Failing since <Time iso={endpoint.failingSince} />
        </div>
      ) : null}
    </>
  ) : (
    <>
      <StatusBadge status="disabled" />
      <div class="hint">
        Disabled
        {endpoint.disabledAt ? (
          <>
            {' '}
            on <Time iso={endpoint.disabledAt} />
          </>
        ) : null}
        : {disabledText(endpoint)}
      </div>
    </>
  )

export const KindList = ({ kinds }: { kinds: readonly string[] }) =>
  kinds.length === KINDS.length ? (
    <span>Every kind ({kinds.length})</span>
  ) : (
    <ul class="plain kinds-short">
      {kinds.map((k) => (
        <li key={k}>
          <code>{k}</code>
        </li>
      ))}
    </ul>
  )

// The service's field rules are the rest of a sentence ("must be https:// for a LIVE endpoint").
const SUBJECTS: Record<string, string> = {
  url: 'The URL',
  description: 'The description',
  kinds: 'The event kinds',
  since: 'The time',
}
const sentence = (field: string, message: string) =>
  /^[a-z]/.test(message) ? `${SUBJECTS[field] ?? field} ${message}.`.replace(/\.\.$/, '.') : message

/** A field the service names (`kinds[3]`) as the form's; anything else is said for the form. */
export const explainEndpointError =
  (fields: readonly string[]) =>
  (error: unknown): Explained => {
    if (!(error instanceof ApiError) || error.errors.length === 0)
      return { message: errorText(error) }
    const byField: Errors = {}
    const rest: string[] = []
    for (const e of error.errors) {
      const field = e.field.replace(/\[\d+\]$/, '').replace(/\..*$/, '')
      const said = sentence(field, e.message)
      if (fields.includes(field))
        byField[field] = byField[field] ? `${byField[field]} ${said}` : said
      else rest.push(`${e.field} ${e.message}`)
    }
    return {
      ...(Object.keys(byField).length > 0 ? { fields: byField } : {}),
      ...(rest.length > 0 || Object.keys(byField).length === 0
        ? { message: rest.join('; ') || errorText(error) }
        : {}),
    }
  }

export type Revealed = { endpoint: WebhookEndpoint; secret: string; rotated: boolean }

/** The signing secret, this once: copy it now, it is never shown again. */
export const SecretReveal = ({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) => {
  const { endpoint, secret, rotated } = revealed
  return (
    <ShownOnce
      id="new-secret"
      title={rotated ? 'The new signing secret' : 'The signing secret'}
      intro={
        <p>
          Of the endpoint <bdi class="url">{endpoint.url}</bdi>.
        </p>
      }
      kept="The service keeps it sealed and never shows it again. If it is lost, rotate it to get a new one."
      label="Signing secret"
      secret={secret}
      copyLabel="Copy secret"
      doneLabel="I have stored the secret"
      onDone={onDone}
    >
      {rotated ? (
        <p>
          The old secret keeps signing alongside the new one for {OVERLAP_HOURS} hours
          {endpoint.previousSecretExpiresAt ? (
            <>
              , until <Time iso={endpoint.previousSecretExpiresAt} />
            </>
          ) : null}
          : each delivery carries a signature by each, so the receiver can move to the new secret
          without missing one.
        </p>
      ) : (
        <p>
          The receiver verifies each delivery with it: the <code>webhook-id</code>,{' '}
          <code>webhook-timestamp</code> and <code>webhook-signature</code> headers of the Standard
          Webhooks scheme (any of its libraries does it).
        </p>
      )}
    </ShownOnce>
  )
}
