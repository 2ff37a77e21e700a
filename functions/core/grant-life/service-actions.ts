import { ServiceUnavailable } from '../../domain/errors'
import type { GrantOffer, GrantRecord } from '../../domain/grant'
import { type DeliveryEvent, grantExpiresAt, reminderDueAt } from '../../domain/grant-lifecycle'
import type { ProgramRecord } from '../../domain/program'
import { isOpen, MAX_OFFER_TOKENS, newOfferToken } from '../../domain/recipient-offer'
import { LOST_RACE, optimisticUpdate } from '../../runtime/optimistic-update'
import type { LifeOutcome } from '../../stores/grant-life.store'
import { type LifeContext, unavailable } from './life-context'
import { lostRace, move, onOffer } from './transition'

type Reminded = 'reminded' | 'not_due' | 'done_already' | 'final'

/** The sweep's expiry of one grant past its offer window (shares go back in the same write). */
export const expire = async (
  ctx: LifeContext,
  grantId: string,
): Promise<'expired' | 'not_due' | 'final' | 'missing'> => {
  const grant = await ctx.store.findGrant(grantId)
  if (grant === undefined) return 'missing'
  if (!isOpen(grant.status)) return 'final'
  let result: 'expired' | 'not_due' | 'final' = 'expired'
  await move(
    ctx,
    grant,
    { kind: 'expire' },
    { kind: 'service' },
    {
      accept: (refusal) => {
        result = refusal === 'not_expired' ? 'not_due' : 'final'
        return true
      },
    },
  )
  return result
}

/** The sweep's reminder mark on an open grant whose reminder is due (once per grant). */
export const remind = async (ctx: LifeContext, grantId: string): Promise<Reminded | 'missing'> => {
  let result: Reminded = 'reminded'
  const outcome = await onOffer(
    ctx,
    grantId,
    (grant) => {
      const expiresAt = grantExpiresAt(grant)
      const due = reminderDueAt(Date.parse(grant.createdAt), expiresAt)
      if (!isOpen(grant.status) || ctx.clock() >= expiresAt) result = 'final'
      else if (grant.offer?.remindedAt !== undefined) result = 'done_already'
      else if (due === undefined || ctx.clock() < due) result = 'not_due'
      else return { ...(grant.offer ?? { delivery: 'pending' }), remindedAt: ctx.iso() }
      return undefined
    },
    () => undefined,
  )
  if (outcome === 'missing') return 'missing'
  if (outcome === 'unavailable') throw new ServiceUnavailable({ cause: new Error(grantId) })
  return result
}

export type OfferLink = { token: string; grant: GrantRecord; program: ProgramRecord }

/**
 * A new link token for the grant's mail. `keepOthers` (a link the recipient asked for): none
 * while the grant already holds MAX_OFFER_TOKENS, which would push the oldest out; the
 * issuer's resend and the first mail make one whatever the count.
 */
export const issueOfferLink = async (
  ctx: LifeContext,
  grantId: string,
  { keepOthers = false }: { keepOthers?: boolean } = {},
): Promise<OfferLink | undefined> =>
  optimisticUpdate(await ctx.store.findGrant(grantId), {
    ...lostRace(ctx),
    attempt: async (grant) => {
      if (grant === undefined || !isOpen(grant.status)) return undefined
      const expiresAt = grantExpiresAt(grant)
      if (ctx.clock() >= expiresAt) return undefined
      if (keepOthers && (grant.offer?.tokens?.length ?? 0) >= MAX_OFFER_TOKENS) return undefined
      const { token, hash } = newOfferToken()
      const outcome = await ctx.store.addOfferToken(grant, {
        hash,
        expiresAt: new Date(expiresAt).toISOString(),
      })
      if (outcome === 'unavailable') throw unavailable(grant)
      if (outcome !== 'done') return LOST_RACE
      const program = await ctx.store.findProgramHead(grant.programId)
      if (program === undefined) return undefined
      const tokens = [...(grant.offer?.tokens ?? []), hash]
      return {
        token,
        grant: { ...grant, offer: { ...(grant.offer ?? { delivery: 'pending' }), tokens } },
        program,
      }
    },
    reread: () => ctx.store.findGrant(grantId),
    exhausted: () => undefined,
  })

/** A mail's delivery event on the grant's offer and history (a missing grant is no error). */
export const recordDelivery = async (
  ctx: LifeContext,
  input: { grantId: string; event: DeliveryEvent; detail?: string },
): Promise<LifeOutcome> => {
  const at = ctx.iso()
  const failed =
    input.event === 'bounced' || input.event === 'complained' || input.event === 'failed'
  const outcome = await onOffer(
    ctx,
    input.grantId,
    (grant) => {
      const offer: GrantOffer = { ...(grant.offer ?? { delivery: 'pending' }) }
      if (failed) offer.delivery = 'failed'
      else {
        if (input.event !== 'reminded')
          offer.delivery = input.event === 'test_inbox' ? 'test_inbox' : 'sent'
        offer.sends = (offer.sends ?? 0) + 1
        offer.lastSentAt = at
      }
      return offer
    },
    () => ({
      at,
      event: 'delivery',
      delivery: input.event,
      actor: 'service',
      ...(input.detail === undefined ? {} : { detail: input.detail.slice(0, 200) }),
    }),
  )
  return outcome === 'missing' || outcome === 'skipped' ? 'done' : outcome
}

/** What the mail worker and the sweep do: links, delivery events, expiry, reminders. */
export const serviceActions = (ctx: LifeContext) => ({
  expire: (grantId: string) => expire(ctx, grantId),
  remind: (grantId: string) => remind(ctx, grantId),
  issueOfferLink: (grantId: string, options?: { keepOthers?: boolean }) =>
    issueOfferLink(ctx, grantId, options),
  recordDelivery: (input: { grantId: string; event: DeliveryEvent; detail?: string }) =>
    recordDelivery(ctx, input),
})
