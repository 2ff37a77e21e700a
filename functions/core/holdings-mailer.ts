import { holdingsLink, renderHoldingsMail } from '../mail/holdings-mail'
import type { HoldingsLink, HoldingsUseCase } from './holdings'
import { type OfferMailerDeps, REFUSED_BY_SES } from './offer-mailer'

/**
 * The holdings sign-in mail, as the OfferMailer sends it for a `holdings-link` message (the public
 * route only queues the address): the links core/holdings.ts makes, each rendered
 * (mail/holdings-mail.ts) and sent. LIVE: the Mailer (SES), paced like the offers, tagged with no
 * grant (a bounce finds no grant to mark). TEST: never SES; the TEST inbox of the link's issuer
 * (the message names the address's newest TEST grant there, as every inbox message names one),
 * and locally the mail sink too.
 */
export type HoldingsMailerDeps = {
  holdings: Pick<HoldingsUseCase, 'issueLinks'>
} & Pick<
  OfferMailerDeps,
  'mailer' | 'inbox' | 'clock' | 'pace' | 'recipientOrigin' | 'sink' | 'issuerName'
>

export const makeHoldingsMailer = (deps: HoldingsMailerDeps) => {
  const { mailer, inbox, clock, pace, recipientOrigin, sink } = deps

  const send = async (link: HoldingsLink, signal: AbortSignal | undefined) => {
    const { holder } = link
    const issuerId = holder.issuerId
    const rendered = renderHoldingsMail({
      mode: holder.mode,
      issuerName: issuerId === undefined ? undefined : await deps.issuerName?.(issuerId),
      link: holdingsLink(recipientOrigin, link.token),
      expiresAt: link.expiresAt,
    })
    const mail = { to: holder.email, ...rendered }
    if (holder.mode === 'LIVE') {
      await pace.take(signal)
      try {
        await mailer.send(mail, { signal })
      } catch (error) {
        // A refused address gets no mail, as an address without grants: nothing to record.
        if (!REFUSED_BY_SES.has(error instanceof Error ? error.name : '')) throw error
      }
      return
    }
    const put = await inbox.put(
      { issuerId: link.newest.issuerId, grantId: link.newest.grantId, ...mail },
      clock(),
      { signal },
    )
    if (put.outcome !== 'done') throw new Error('TEST inbox: message id taken for a sign-in link')
    await sink?.send(mail, { signal })
  }

  return {
    /** The sign-in mail for `email`: `limited` past the address's attempts (nothing sent). */
    async handle(
      email: string,
      { signal }: { signal?: AbortSignal | undefined } = {},
    ): Promise<'requested' | 'limited'> {
      const links = await deps.holdings.issueLinks({ email })
      if (links === 'limited') return 'limited'
      for (const link of links) await send(link, signal)
      return 'requested'
    },
  }
}

export type HoldingsMailer = ReturnType<typeof makeHoldingsMailer>
