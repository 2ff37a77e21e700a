import type { OfferMailMessage, OfferMailQueueMessage } from '../consumers'
import {
  GrantAccepted,
  GrantNotFound,
  GrantStateConflict,
  OfferExpired,
  OfferNotIdentified,
} from '../domain/errors'
import type { GrantRecord } from '../domain/grant'
import type { DeliveryEvent, RejectionReason } from '../domain/grant-lifecycle'
import { grantExpiresAt } from '../domain/grant-lifecycle'
import type { ProgramRecord } from '../domain/program'
import { type MagicOutcome, magicOutcome, type TestMoveTarget } from '../domain/recipient-offer'
import type { Mailer, OutgoingMail } from '../mail/mailer'
import { offerLink, type RenderedMail, renderOfferMail } from '../mail/offer-mail'
import type { SendPace } from '../mail/send-pace'
import type { InboxStore } from '../stores/inbox.store'
import type { GrantLife } from './grant-life'

/**
 * The consumer of the OfferMail queue (functions/consumers.ts). A `holdings-link` (the recipient's
 * "send me a sign-in link" for their holdings) -> core/holdings-mailer.ts. A `link-request` (the recipient's
 * "send me a new link") -> GrantLife.requestLink, which marks the offers to send again (the
 * stream brings them back here as `relink`). A grant's message `{ kind, grantId, cause }` -> a new link for the grant (issueOfferLink: none when the grant is no longer open,
 * and then nothing is sent, which makes a redelivered message harmless) -> the offer e-mail or its
 * reminder, rendered (mail/offer-mail.ts) ->
 *
 * - LIVE: the Mailer (SES with the configuration set and a `grantId` tag, so bounces and
 *   complaints find the grant), paced no faster than the account's SES rate, then
 *   recordDelivery('sent' | 'reminded'). SES refusing the message itself (MessageRejected, a bad
 *   address) is `failed` on the grant; throttling and everything else is thrown, so the message
 *   comes back (the handler reports it in `batchItemFailures`) and, after the queue's
 *   maxReceiveCount, waits in the dead letters.
 * - TEST: never SES. The TEST inbox (and locally the mail sink), then
 *   recordDelivery('test_inbox' | 'reminded'); a magic address (domain/recipient-offer.ts) then
 *   drives the grant to its outcome as the recipient or SES would have.
 */
export type OfferMailerDeps = {
  life: Pick<GrantLife, 'issueOfferLink' | 'recordDelivery' | 'testMove' | 'requestLink'>
  /** LIVE mail's transport (SES in AWS, the mail sink locally). */
  mailer: Mailer
  inbox: InboxStore
  clock: () => number
  /** Taken before each LIVE send (mail/send-pace.ts). */
  pace: SendPace
  /** Where the recipient's page is: links are `<origin>/offer#t=<token>`. */
  recipientOrigin: string
  /** Locally: TEST mail is also written to the mail sink (MAIL_SINK_FILE). */
  sink?: Mailer | undefined
  /** The issuer's name, shown as who grants; the program's name when unknown. */
  issuerName?: ((issuerId: string) => Promise<string | undefined>) | undefined
  /** A recipient's holdings sign-in (`holdings-link`): core/holdings-mailer.ts. */
  holdingsMail?:
    | {
        handle(
          email: string,
          options?: { signal?: AbortSignal | undefined },
        ): Promise<'requested' | 'limited'>
      }
    | undefined
}

/**
 * What one message came to: `not_open` (nothing sent: the grant is gone, final or past its
 * window), `sent` / `test_inbox` (handed over and recorded), `failed` (SES refused the message
 * itself, recorded on the grant), `no_sender` (this deployment has no SES identity; recorded as
 * failed).
 */
export type OfferMailResult = {
  result:
    | 'not_open'
    | 'sent'
    | 'test_inbox'
    | 'failed'
    | 'no_sender'
    /** A link request: the newest open grant per issuer asked for again, or the address's limit hit. */
    | 'requested'
    | 'limited'
  /** A TEST grant's magic address, and what it did. */
  magic?: MagicOutcome
}

/** SES refused this message for what it is (its address, its content): sending again cannot help. */
export const REFUSED_BY_SES = new Set(['MessageRejected', 'BadRequestException'])

/** The grant moved on before the magic outcome could (a cancel won the race): nothing to do. */
const alreadyMoved = (error: unknown) =>
  error instanceof GrantAccepted ||
  error instanceof GrantStateConflict ||
  error instanceof OfferExpired ||
  error instanceof OfferNotIdentified ||
  error instanceof GrantNotFound

const MAGIC_MOVES: Partial<Record<MagicOutcome, { to: TestMoveTarget; reason?: RejectionReason }>> =
  {
    accept: { to: 'accepted' },
    decline: { to: 'rejected', reason: 'declined' },
    ineligible: { to: 'rejected', reason: 'ineligible_country' },
    expire: { to: 'expired' },
  }
const MAGIC_DELIVERY: Partial<Record<MagicOutcome, DeliveryEvent>> = {
  bounce: 'bounced',
  complain: 'complained',
}

export const makeOfferMailer = (deps: OfferMailerDeps) => {
  const { life, mailer, inbox, clock, pace, recipientOrigin, sink } = deps

  /** recordDelivery, insisting on it: `unavailable` is thrown so the message comes back. */
  const record = async (grantId: string, event: DeliveryEvent, detail?: string) => {
    const outcome = await life.recordDelivery({
      grantId,
      event,
      ...(detail === undefined ? {} : { detail }),
    })
    if (outcome !== 'done') {
      throw new Error(`Recording delivery ${event} on ${grantId}: ${outcome}; try again.`)
    }
  }

  const render = async (
    kind: OfferMailMessage['kind'],
    grant: GrantRecord,
    program: ProgramRecord,
    token: string,
  ): Promise<RenderedMail> =>
    renderOfferMail({
      kind,
      mode: grant.mode,
      recipient: grant.recipient,
      issuerName: await deps.issuerName?.(grant.issuerId),
      program: { name: program.name, description: program.description },
      amount: grant.amount,
      reason: grant.reason,
      expiresAt: new Date(grantExpiresAt(grant)).toISOString(),
      link: offerLink(recipientOrigin, token),
    })

  const live = async (
    message: OfferMailMessage,
    grant: GrantRecord,
    mail: OutgoingMail,
    signal: AbortSignal | undefined,
  ): Promise<OfferMailResult> => {
    await pace.take(signal)
    let outcome: Awaited<ReturnType<Mailer['send']>>
    try {
      outcome = await mailer.send(mail, { signal })
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error'
      if (!REFUSED_BY_SES.has(name)) throw error
      // The error's name only: its message may quote the address.
      await record(grant.grantId, 'failed', `ses: ${name}`)
      return { result: 'failed' }
    }
    if (outcome === 'no_sender') {
      await record(grant.grantId, 'failed', 'no_sender: this deployment has no SES identity')
      return { result: 'no_sender' }
    }
    await record(grant.grantId, message.kind === 'reminder' ? 'reminded' : 'sent')
    return { result: 'sent' }
  }

  const test = async (
    message: OfferMailMessage,
    grant: GrantRecord,
    mail: OutgoingMail & RenderedMail,
    signal: AbortSignal | undefined,
  ): Promise<OfferMailResult> => {
    const put = await inbox.put(
      {
        issuerId: grant.issuerId,
        grantId: grant.grantId,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
      },
      clock(),
      { signal },
    )
    if (put.outcome !== 'done') throw new Error(`TEST inbox: message id taken for ${grant.grantId}`)
    await sink?.send(mail, { signal })
    await record(
      grant.grantId,
      message.kind === 'reminder' ? 'reminded' : 'test_inbox',
      message.kind === 'reminder' ? 'test_inbox' : undefined,
    )
    const magic = magicOutcome(grant.recipient.email)
    if (magic === undefined) return { result: 'test_inbox' }
    const move = MAGIC_MOVES[magic]
    if (move !== undefined) {
      try {
        await life.testMove({
          grantId: grant.grantId,
          issuerId: grant.issuerId,
          mode: 'TEST',
          to: move.to,
          ...(move.reason === undefined ? {} : { reason: move.reason }),
        })
      } catch (error) {
        if (!alreadyMoved(error)) throw error
      }
    }
    const delivery = MAGIC_DELIVERY[magic]
    if (delivery !== undefined) {
      await record(grant.grantId, delivery, `simulated: ${magic}+ address`)
    }
    return { result: 'test_inbox', magic }
  }

  return {
    async handle(
      message: OfferMailQueueMessage,
      { signal }: { signal?: AbortSignal | undefined } = {},
    ): Promise<OfferMailResult> {
      if (message.kind === 'link-request') {
        return { result: await life.requestLink({ email: message.email }) }
      }
      if (message.kind === 'holdings-link') {
        if (deps.holdingsMail === undefined) throw new Error('No holdings mailer in this process')
        return { result: await deps.holdingsMail.handle(message.email, { signal }) }
      }
      // A link the recipient asked for never pushes out one they may still hold.
      const issued = await life.issueOfferLink(message.grantId, {
        keepOthers: message.cause === 'relink',
      })
      if (issued === undefined) return { result: 'not_open' }
      const { token, grant, program } = issued
      const rendered = await render(message.kind, grant, program, token)
      const mail = { to: grant.recipient.email, ...rendered, tags: { grantId: grant.grantId } }
      return grant.mode === 'TEST'
        ? test(message, grant, mail, signal)
        : live(message, grant, mail, signal)
    },
  }
}

export type OfferMailer = ReturnType<typeof makeOfferMailer>
