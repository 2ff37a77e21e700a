import {
  GrantNotFound,
  OfferLinkInvalid,
  TooManyAttempts,
  ValidationFailed,
} from '../../domain/errors'
import { GRANT_ID, type GrantRecord, type RecipientIdentity } from '../../domain/grant'
import { grantExpiresAt } from '../../domain/grant-lifecycle'
import type { Holder } from '../../domain/holdings'
import {
  decideEligibility,
  type EligibilityInput,
  eligibilityFields,
  hashOfferToken,
  isOfferTokenShape,
  isOpen,
  MAX_OFFER_TOKENS,
} from '../../domain/recipient-offer'
import type { GrantLifeStore } from '../../stores/grant-life.store'
import { type LifeContext, RECIPIENT_LIMITS, RESEND_GAP_MS } from './life-context'
import { type RecipientView, viewOf } from './recipient-view'
import { move } from './transition'

/** A link token's grant, the address it speaks for, and that address's grants at its issuer. */
export type Link = { grant: GrantRecord; email: string; siblings: GrantRecord[] }

/** Counts one attempt of a public caller; past the limit, 429 (nothing else happens). */
export const limitAttempts = async (
  { store, clock }: { store: Pick<GrantLifeStore, 'countAttempt'>; clock: () => number },
  key: string,
  rule: { windowMs: number; limit: number },
) => {
  const now = clock()
  if ((await store.countAttempt(key, { now, ...rule })) === 'limited') {
    throw new TooManyAttempts(Math.ceil((rule.windowMs - (now % rule.windowMs)) / 1000))
  }
}

/**
 * The grant a link token opens, and the address and issuer it speaks for; one answer
 * (OfferLinkInvalid) for a token that is unknown, cleared (a corrected address), past its
 * offer, or used (its grant decided and nothing else open for the address at this issuer).
 */
export const linkOf = async (ctx: LifeContext, token: unknown): Promise<Link> => {
  const { store, clock } = ctx
  if (!isOfferTokenShape(token)) throw new OfferLinkInvalid()
  const hash = hashOfferToken(token)
  await limitAttempts(ctx, `token#${hash}`, RECIPIENT_LIMITS.token)
  const record = await store.findOfferToken(hash)
  const grant = record === undefined ? undefined : await store.findGrant(record.tokenOf)
  if (
    record === undefined ||
    grant === undefined ||
    !(grant.offer?.tokens ?? []).includes(hash) ||
    clock() >= Date.parse(record.expiresAt) ||
    grant.recipientKey === undefined
  ) {
    throw new OfferLinkInvalid()
  }
  const siblings = await siblingsOf(ctx, grant)
  const open = siblings.filter((g) => isOpen(g.status) && clock() < grantExpiresAt(g))
  if (open.length === 0) throw new OfferLinkInvalid()
  return { grant, email: grant.recipientKey, siblings }
}

/** The address's grants at `grant`'s issuer and mode, with `grant` as just read among them. */
const siblingsOf = async ({ store }: LifeContext, grant: GrantRecord) => {
  // Scoped in the read, not after it: no grant elsewhere can crowd this issuer's out.
  const found = await store.grantsOfRecipient(grant.recipientKey ?? '', {
    issuerId: grant.issuerId,
    mode: grant.mode,
  })
  // The link's own grant as just read, even while the index has not caught up with it.
  return found.some((g) => g.grantId === grant.grantId)
    ? found.map((g) => (g.grantId === grant.grantId ? grant : g))
    : [grant, ...found]
}

/**
 * Who acts: the holder of an offer link (its token), or of a holdings session (core/holdings.ts
 * checked it: an address in a mode, and for TEST one issuer).
 */
export type RecipientCaller = { token?: unknown; holder?: Holder | undefined }

/**
 * A holdings session's grant: one addressed to the session's address, in its mode (and issuer);
 * any other, like an unknown one, is not found.
 */
const heldGrant = async (ctx: LifeContext, holder: Holder, grantId: unknown) => {
  const grant =
    typeof grantId === 'string' && GRANT_ID.test(grantId)
      ? await ctx.store.findGrant(grantId)
      : undefined
  if (
    grant === undefined ||
    grant.recipientKey !== holder.email ||
    grant.mode !== holder.mode ||
    (holder.issuerId !== undefined && grant.issuerId !== holder.issuerId)
  ) {
    throw new GrantNotFound(String(grantId))
  }
  const link: Link = { grant, email: holder.email, siblings: await siblingsOf(ctx, grant) }
  return { link, grant }
}

/** The grant a recipient acts on: one of their address's grants at this link's issuer. */
const actOn = async (ctx: LifeContext, { token, holder }: RecipientCaller, grantId: unknown) => {
  if (holder !== undefined) return heldGrant(ctx, holder, grantId)
  const link = await linkOf(ctx, token)
  const grant = link.siblings.find((g) => g.grantId === grantId)
  if (grant === undefined) throw new OfferLinkInvalid()
  return { link, grant }
}

/** After a recipient's change: the page again, with the grant just decided still shown. */
const after = (ctx: LifeContext, link: Link, changed: GrantRecord) => {
  const grants = link.siblings.map((g) => (g.grantId === changed.grantId ? changed : g))
  return viewOf(
    ctx.store,
    link.email,
    grants,
    (g) => isOpen(g.status) || g.grantId === changed.grantId,
  )
}

/** The recipient's page: view, identify, accept, decline, and "send me a new link". */
export const recipientSteps = (ctx: LifeContext) => ({
  async view(input: { token: unknown }): Promise<RecipientView> {
    const link = await linkOf(ctx, input.token)
    return viewOf(
      ctx.store,
      link.email,
      link.siblings,
      (g) => isOpen(g.status) || g.grantId === link.grant.grantId,
    )
  },

  async identify(
    input: RecipientCaller & { grantId: unknown } & EligibilityInput,
  ): Promise<RecipientView> {
    const { link, grant } = await actOn(ctx, input, input.grantId)
    const program = await ctx.store.findProgramHead(grant.programId)
    const fields = eligibilityFields(program ?? {})
    const missing = [
      ...(fields.dateOfBirth && input.dateOfBirth === undefined ? ['dateOfBirth'] : []),
      ...(fields.country && input.country === undefined ? ['country'] : []),
    ]
    if (missing.length > 0) {
      throw new ValidationFailed(
        missing.map((field) => ({ field, message: 'is required by this program' })),
      )
    }
    const decision = decideEligibility(program ?? {}, input, ctx.clock())
    const identity: RecipientIdentity = {
      name: input.name,
      ...(decision.country === undefined ? {} : { country: decision.country }),
      ...(decision.age === undefined ? {} : { age: decision.age }),
      at: ctx.iso(),
    }
    const changed = await move(
      ctx,
      grant,
      { kind: 'identify', ...(decision.eligible ? {} : { ineligible: decision.reason }) },
      { kind: 'recipient' },
      { identity, accept: (refusal) => refusal === 'already_offered' },
    )
    return after(ctx, link, changed)
  },

  async accept(input: RecipientCaller & { grantId: unknown; termsVersion: number }) {
    const { link, grant } = await actOn(ctx, input, input.grantId)
    const program = await ctx.store.findProgramHead(grant.programId)
    const current = program?.terms?.version ?? 0
    if (input.termsVersion !== current) {
      throw new ValidationFailed([
        {
          field: 'termsVersion',
          message: `the terms are at version ${current}; read them again and accept that version`,
        },
      ])
    }
    const changed = await move(
      ctx,
      grant,
      { kind: 'accept' },
      { kind: 'recipient' },
      { acceptance: { termsVersion: current, at: ctx.iso() } },
    )
    return after(ctx, link, changed)
  },

  async decline(input: RecipientCaller & { grantId: unknown }) {
    const { link, grant } = await actOn(ctx, input, input.grantId)
    const changed = await move(ctx, grant, { kind: 'decline' }, { kind: 'recipient' })
    return after(ctx, link, changed)
  },

  /**
   * "Send me a new link", as the mail worker carries it out (the public route only queues the
   * address, so its answer waits on nothing the address holds). For each issuer and mode with
   * an open grant for the address, the newest such grant's offer is asked for again (at most
   * once per RESEND_GAP_MS), marked as the recipient's: its mail makes a new link only while the
   * grant holds fewer than MAX_OFFER_TOKENS, so nobody can push a valid link out by asking.
   */
  async requestLink(input: { email: string }): Promise<'requested' | 'limited'> {
    const { store } = ctx
    const now = ctx.clock()
    const rule = { now, ...RECIPIENT_LIMITS.address }
    if ((await store.countAttempt(`address#${input.email}`, rule)) === 'limited') return 'limited'
    const open = (await store.grantsOfRecipient(input.email, { open: true })).filter(
      (g) => now < grantExpiresAt(g),
    )
    const newestPerIssuer = new Map<string, GrantRecord>()
    for (const grant of open) {
      const key = `${grant.issuerId}#${grant.mode}`
      if (!newestPerIssuer.has(key)) newestPerIssuer.set(key, grant)
    }
    for (const grant of newestPerIssuer.values()) {
      if ((grant.offer?.tokens?.length ?? 0) >= MAX_OFFER_TOKENS) continue
      await store.requestResend(grant, { now, minGapMs: RESEND_GAP_MS, by: 'recipient' })
    }
    return 'requested'
  },
})
