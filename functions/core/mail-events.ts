import type { GrantRecord } from '../domain/grant'
import type { DeliveryEvent, GrantHistoryEntry } from '../domain/grant-lifecycle'
import type { GrantLife } from './grant-life'

/**
 * What SES says happened to an offer e-mail after it left: the configuration set's event
 * destination publishes each event to SNS as a JSON document (SES's event-publishing format:
 * `eventType`, `mail` with the message's `tags`, and `bounce`, `complaint`, `reject` ...), and the
 * MailEvents function (handlers/mail-events.handler.ts) hands each document here. The offer mailer
 * tags every message with its grant (`grantId`), which is how a document finds its grant:
 *
 * - Bounce -> `bounced` (detail: bounce type and subtype, e.g. `Permanent/General`);
 * - Complaint -> `complained` (detail: the ISP's feedback type, e.g. `abuse`);
 * - Reject (SES found a virus) and Rendering Failure -> `failed`;
 * - DeliveryDelay, Send, Delivery, Open, Click: nothing (a delay is not a failure: SES keeps trying).
 *
 * The detail never carries an address or a diagnostic text (which quotes one): only SES's
 * fixed vocabulary, checked against a pattern.
 */
export type SesEventDocument = {
  eventType?: string
  /** Identity notifications (not event publishing) say notificationType and carry no tags. */
  notificationType?: string
  mail?: { tags?: Record<string, string[] | undefined> }
  bounce?: { bounceType?: string; bounceSubType?: string }
  complaint?: { complaintFeedbackType?: string; complaintSubType?: string | null }
  reject?: { reason?: string }
}

export type MailEventDecision =
  | {
      grantId: string
      event: Extract<DeliveryEvent, 'bounced' | 'complained' | 'failed'>
      detail: string
    }
  | { ignored: 'not_a_failure' | 'no_grant' | 'not_an_event' }

const GRANT_ID = /^gr_[0-9a-z]{26}$/
/** SES's own words for types and reasons: letters, digits, spaces and a little punctuation. */
const SES_WORD = /^[A-Za-z0-9 _./:-]{1,60}$/

const word = (value: unknown, fallback: string) =>
  typeof value === 'string' && SES_WORD.test(value) ? value : fallback

/** Pure: what a document means for its grant, if anything. */
export const decideMailEvent = (document: unknown): MailEventDecision => {
  if (typeof document !== 'object' || document === null) return { ignored: 'not_an_event' }
  const doc = document as SesEventDocument
  const type = doc.eventType
  if (typeof type !== 'string') return { ignored: 'not_an_event' }
  const grantId = doc.mail?.tags?.grantId?.[0]
  const failure = (():
    | Omit<Extract<MailEventDecision, { grantId: string }>, 'grantId'>
    | undefined => {
    switch (type) {
      case 'Bounce':
        return {
          event: 'bounced',
          detail: `${word(doc.bounce?.bounceType, 'Undetermined')}/${word(doc.bounce?.bounceSubType, 'Undetermined')}`,
        }
      case 'Complaint':
        return {
          event: 'complained',
          detail: word(
            doc.complaint?.complaintFeedbackType ?? doc.complaint?.complaintSubType,
            'complaint',
          ),
        }
      case 'Reject':
        return {
          event: 'failed',
          detail: `rejected by SES: ${word(doc.reject?.reason, 'unknown')}`,
        }
      case 'Rendering Failure':
        return { event: 'failed', detail: 'rendering failure' }
      default:
        return undefined
    }
  })()
  if (failure === undefined) return { ignored: 'not_a_failure' }
  if (typeof grantId !== 'string' || !GRANT_ID.test(grantId)) return { ignored: 'no_grant' }
  return { grantId, ...failure }
}

/**
 * Whether this failure is on the grant already since its last mail went out: SNS delivers at
 * least once, and Lambda retries an invocation that failed after writing, so the same document
 * can come twice. A bounce of a later mail (after a resend) follows a later `sent` line and counts.
 */
export const recordedSinceLastSend = (
  grant: Pick<GrantRecord, 'history'> | undefined,
  decision: { event: DeliveryEvent; detail: string },
) => {
  const history = grant?.history ?? []
  for (let i = history.length - 1; i >= 0; i--) {
    const line = history[i] as GrantHistoryEntry
    if (line.event !== 'delivery') continue
    if (line.delivery === decision.event && line.detail === decision.detail) return true
    if (
      line.delivery === 'sent' ||
      line.delivery === 'reminded' ||
      line.delivery === 'test_inbox'
    ) {
      return false
    }
  }
  return false
}

export const makeMailEvents = ({
  life,
  findGrant,
}: {
  life: Pick<GrantLife, 'recordDelivery'>
  /** Reads the grant to skip a document recorded already (optional: without it, every one is). */
  findGrant?: (grantId: string) => Promise<Pick<GrantRecord, 'history'> | undefined>
}) => ({
  /**
   * One SES event document: recorded on its grant, or ignored. Throws when the grant could not
   * be written (the invocation is retried, then dead-lettered).
   */
  async handle(document: unknown): Promise<MailEventDecision | { ignored: 'recorded_already' }> {
    const decision = decideMailEvent(document)
    if ('ignored' in decision) return decision
    if (findGrant && recordedSinceLastSend(await findGrant(decision.grantId), decision)) {
      return { ignored: 'recorded_already' }
    }
    const outcome = await life.recordDelivery(decision)
    if (outcome !== 'done') {
      throw new Error(`Recording ${decision.event} on ${decision.grantId}: ${outcome}; try again.`)
    }
    return decision
  },
})

export type MailEvents = ReturnType<typeof makeMailEvents>
