import type { Mode } from '../domain/api-key'
import {
  GrantAccepted,
  GrantNotFound,
  GrantStateConflict,
  OfferExpired,
  OfferLinkInvalid,
  OfferNotIdentified,
  ResendTooSoon,
  ServiceUnavailable,
  TestModeOnly,
  TooManyAttempts,
  ValidationFailed,
} from '../domain/errors'
import type { GrantOffer, GrantRecord, RecipientIdentity } from '../domain/grant'
import {
  actorOnHistory,
  type DeliveryEvent,
  type GrantActor,
  type GrantEvent,
  type GrantHistoryEntry,
  grantExpiresAt,
  nextState,
  RESEND_GAP_MS,
  type RejectionReason,
  reminderDueAt,
  returnsShares,
  type TransitionRefusal,
} from '../domain/grant-lifecycle'
import type { Actor } from '../domain/people'
import type { ProgramRecord, ProgramTerms } from '../domain/program'
import {
  decideEligibility,
  type EligibilityInput,
  eligibilityFields,
  hashOfferToken,
  isOfferTokenShape,
  isOpen,
  MAX_OFFER_TOKENS,
  newOfferToken,
  type TestMoveTarget,
} from '../domain/recipient-offer'
import { sleep as realSleep } from '../runtime/sleep'
import { auditEntry } from '../stores/audit'
import type { GrantChange, GrantLifeStore, LifeOutcome } from '../stores/grant-life.store'

/**
 * A grant's life after it is made, for every door: the integrator API (cancel, the TEST-only
 * move, the balance), the management API and the CLI (cancel, resend, correct the address), the
 * recipient's page (view, identify, accept, decline, a new link), the mail worker (links,
 * delivery), the sweep (expire, remind). Each change is decided by grant-lifecycle.ts from the
 * grant as read and written on that state (stores/grant-life.store.ts): of racing changes exactly
 * one is written; the loser reads again and decides again.
 */

export type GrantLifeDeps = {
  store: GrantLifeStore
  clock: () => number
  /** The pause after a lost race (tests and models pass theirs); the real one by default. */
  sleep?: (ms: number) => Promise<void>
  random?: () => number
}

/** What a recipient's page shows of one grant: nothing of other addresses, nothing of the issuer's people. */
export type RecipientGrantView = {
  grantId: string
  programId: string
  programName: string
  description?: string
  amount: number
  reason: string
  state: GrantRecord['status']
  rejectionReason?: RejectionReason
  expiresAt: string
  mode: Mode
  /** The fields identifying asks for (the program's rules). */
  fields: { name: true; dateOfBirth: boolean; country: boolean }
  countries?: string[]
  minAge?: number
  terms?: ProgramTerms
  identified: boolean
  acceptedAt?: string
}

export type RecipientView = { email: string; grants: RecipientGrantView[] }

export type RecipientBalance = {
  email: string
  name?: string
  programId: string
  /** Shares of accepted grants. */
  accepted: number
  /** Shares of reserved and offered grants. */
  pending: number
  grants: GrantRecord[]
  identity?: RecipientIdentity
}

// The resend gap is a domain rule (the console says it too); re-exported for its readers here.
export { RESEND_GAP_MS }
/** Public endpoints: attempts per link token, and new-link requests per address. */
export const RECIPIENT_LIMITS = {
  token: { windowMs: 15 * 60_000, limit: 30 },
  address: { windowMs: 60 * 60_000, limit: 5 },
} as const
/**
 * Re-reads after losing a race before giving up (another change keeps winning). Each loser waits a
 * random moment first (full jitter, up to 10 ms doubling to 160 ms), so writers that met once
 * spread out instead of meeting again at the next read; eight writers at once on one grant all
 * get through.
 */
const MAX_TRIES = 8
const lostRacePauseMs = (tries: number, random: () => number) =>
  random() * Math.min(160, 10 * 2 ** tries)

type Owner = { issuerId: string; mode?: Mode | undefined; programId?: string | undefined }
type AuditInput = { requestId?: string | undefined } | undefined

export const makeGrantLife = ({
  store,
  clock,
  sleep = realSleep,
  random = Math.random,
}: GrantLifeDeps) => {
  const iso = () => new Date(clock()).toISOString()
  /** Before the re-read that follows the `tries`-th lost race. */
  const afterLostRace = (tries: number) => sleep(lostRacePauseMs(tries, random))

  /** The grant, if it belongs to the caller's issuer (and mode, and program): else not found. */
  const owned = async (grantId: string, owner: Owner): Promise<GrantRecord> => {
    const grant = /^gr_[0-9a-z]{26}$/.test(grantId) ? await store.findGrant(grantId) : undefined
    if (
      grant === undefined ||
      grant.issuerId !== owner.issuerId ||
      (owner.mode !== undefined && grant.mode !== owner.mode) ||
      (owner.programId !== undefined && grant.programId !== owner.programId)
    ) {
      throw new GrantNotFound(grantId)
    }
    return grant
  }

  const reread = async (grant: GrantRecord) => {
    const fresh = await store.findGrant(grant.grantId)
    if (fresh === undefined) throw new GrantNotFound(grant.grantId)
    return fresh
  }

  const auditOf = (
    grant: GrantRecord,
    actor: GrantActor,
    action: string,
    audit: AuditInput,
    details: Record<string, string | number | boolean | null> = {},
  ) => {
    const who: Actor | undefined =
      actor.kind === 'person'
        ? { kind: 'person', sub: actor.sub, email: actor.email }
        : actor.kind === 'operator'
          ? { kind: 'operator', label: 'operator CLI' }
          : undefined
    if (who === undefined || audit === undefined) return undefined
    return auditEntry({
      issuerId: grant.issuerId,
      actor: who,
      action,
      target: { type: 'grant', id: grant.grantId },
      now: clock(),
      requestId: audit.requestId,
      details: { programId: grant.programId, mode: grant.mode, ...details },
    })
  }

  /**
   * Applies `event` by `actor`, deciding again from a fresh read whenever another change won.
   * Returns the grant as written. `extras` adds what the change records (identity, acceptance).
   */
  const move = async (
    start: GrantRecord,
    event: GrantEvent,
    actor: GrantActor,
    extras: Pick<GrantChange, 'identity' | 'acceptance'> & {
      audit?: (grant: GrantRecord) => GrantChange['audit']
      /** Refusals that are answers, not errors (an identify already done). */
      accept?: (refusal: TransitionRefusal, grant: GrantRecord) => boolean
    } = {},
  ): Promise<GrantRecord> => {
    let grant = start
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      const decided = nextState(
        { state: grant.status, expiresAt: grantExpiresAt(grant) },
        event,
        actor,
        clock(),
      )
      if ('refused' in decided) {
        if (extras.accept?.(decided.refused, grant)) return grant
        throw refusalError(grant, decided.refused)
      }
      const program = returnsShares(decided.to)
        ? await store.findProgramHead(grant.programId)
        : undefined
      const entry: GrantHistoryEntry = {
        at: iso(),
        event: 'transition',
        state: decided.to,
        ...(decided.reason === undefined ? {} : { reason: decided.reason }),
        actor: actorOnHistory(actor),
      }
      const audit = extras.audit?.(grant)
      const outcome = await store.change({
        grant,
        to: decided.to,
        ...(decided.reason === undefined ? {} : { reason: decided.reason }),
        entry,
        ...(extras.identity === undefined ? {} : { identity: extras.identity }),
        ...(extras.acceptance === undefined ? {} : { acceptance: extras.acceptance }),
        ...(program === undefined ? {} : { returnShares: { program } }),
        ...(audit === undefined ? {} : { audit }),
      })
      if (outcome === 'done') {
        return {
          ...grant,
          status: decided.to,
          ...(decided.reason === undefined ? {} : { rejectionReason: decided.reason }),
          ...(extras.identity === undefined ? {} : { identity: extras.identity }),
          ...(extras.acceptance === undefined ? {} : { acceptance: extras.acceptance }),
          history: [...(grant.history ?? []), entry],
        }
      }
      if (outcome === 'unavailable') throw unavailable(grant)
      await afterLostRace(tries)
      grant = await reread(grant)
    }
    throw unavailable(grant)
  }

  /** A delivery event (or a mark nobody reads as one) on the grant's offer, on its state as read. */
  const onOffer = async (
    grantId: string,
    offerOf: (grant: GrantRecord) => GrantOffer | undefined,
    entryOf: (grant: GrantRecord) => GrantHistoryEntry | undefined,
  ): Promise<LifeOutcome | 'missing' | 'skipped'> => {
    let grant = await store.findGrant(grantId)
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      if (grant === undefined) return 'missing'
      const offer = offerOf(grant)
      if (offer === undefined) return 'skipped'
      const entry = entryOf(grant)
      const outcome = await store.change({ grant, offer, ...(entry ? { entry } : {}) })
      if (outcome !== 'stale') return outcome
      await afterLostRace(tries)
      grant = await store.findGrant(grantId)
    }
    return 'unavailable'
  }

  /** Counts one attempt of a public caller; past the limit, 429 (nothing else happens). */
  const limit = async (key: string, rule: { windowMs: number; limit: number }) => {
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
  const linkOf = async (token: unknown) => {
    if (!isOfferTokenShape(token)) throw new OfferLinkInvalid()
    const hash = hashOfferToken(token)
    await limit(`token#${hash}`, RECIPIENT_LIMITS.token)
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
    // Scoped in the read, not after it: no grant elsewhere can crowd this issuer's out.
    const found = await store.grantsOfRecipient(grant.recipientKey, {
      issuerId: grant.issuerId,
      mode: grant.mode,
    })
    // The link's own grant as just read, even while the index has not caught up with it.
    const siblings = found.some((g) => g.grantId === grant.grantId)
      ? found.map((g) => (g.grantId === grant.grantId ? grant : g))
      : [grant, ...found]
    const open = siblings.filter((g) => isOpen(g.status) && clock() < grantExpiresAt(g))
    if (open.length === 0) throw new OfferLinkInvalid()
    return { grant, email: grant.recipientKey, siblings }
  }

  const viewOf = async (
    email: string,
    grants: GrantRecord[],
    keep: (grant: GrantRecord) => boolean,
  ): Promise<RecipientView> => {
    const shown = grants.filter(keep)
    const programs = new Map(
      (await store.findProgramHeads([...new Set(shown.map((g) => g.programId))])).map((p) => [
        p.programId,
        p,
      ]),
    )
    // A head keeps only `hasText`: the texts shown are read from their own items in one read.
    const withText = [...programs.values()].filter((p) => p.terms?.hasText)
    if (withText.length > 0) {
      const texts = new Map(
        (await store.findTermsTexts(withText.map((p) => p.programId))).map((t) => [t.termsOf, t]),
      )
      for (const program of withText) {
        const found = texts.get(program.programId)
        const { hasText: _, ...terms } = program.terms as ProgramTerms
        programs.set(program.programId, {
          ...program,
          terms: found?.version === terms.version ? { ...terms, text: found.text } : terms,
        })
      }
    }
    return {
      email,
      grants: shown.map((grant) => recipientGrantView(grant, programs.get(grant.programId))),
    }
  }

  /** The grant a recipient acts on: one of their address's grants at this link's issuer. */
  const actOn = async (token: unknown, grantId: unknown) => {
    const link = await linkOf(token)
    const grant = link.siblings.find((g) => g.grantId === grantId)
    if (grant === undefined) throw new OfferLinkInvalid()
    return { link, grant }
  }

  /** After a recipient's change: the page again, with the grant just decided still shown. */
  const after = async (link: Awaited<ReturnType<typeof linkOf>>, changed: GrantRecord) => {
    const grants = link.siblings.map((g) => (g.grantId === changed.grantId ? changed : g))
    return viewOf(link.email, grants, (g) => isOpen(g.status) || g.grantId === changed.grantId)
  }

  return {
    async cancel(input: Owner & { grantId: string; actor: GrantActor; audit?: AuditInput }) {
      const grant = await owned(input.grantId, input)
      if (grant.status === 'canceled') return grant
      return move(grant, { kind: 'cancel' }, input.actor, {
        audit: (g) => auditOf(g, input.actor, 'grant.cancel', input.audit),
        accept: (_refusal, g) => g.status === 'canceled',
      })
    },

    async testMove(
      input: Owner & { grantId: string; mode: Mode; to: TestMoveTarget; reason?: RejectionReason },
    ) {
      if (input.mode !== 'TEST') throw new TestModeOnly()
      let grant = await owned(input.grantId, input)
      if (grant.mode !== 'TEST') throw new TestModeOnly()
      const actor: GrantActor = { kind: 'simulation' }
      const reason = input.to === 'rejected' ? (input.reason ?? 'declined') : undefined
      if (grant.status === input.to && (reason === undefined || grant.rejectionReason === reason)) {
        return grant
      }
      const identity: RecipientIdentity = {
        name: grant.recipient.name ?? 'TEST recipient',
        at: iso(),
      }
      switch (input.to) {
        case 'offered':
          return move(grant, { kind: 'identify' }, actor, { identity })
        case 'accepted':
          if (grant.status === 'reserved') {
            grant = await move(grant, { kind: 'identify' }, actor, { identity })
          }
          return move(grant, { kind: 'accept' }, actor, {
            acceptance: { termsVersion: 0, at: iso() },
          })
        case 'rejected':
          if (reason === 'declined') return move(grant, { kind: 'decline' }, actor)
          if (grant.status !== 'reserved') throw refusalError(grant, 'already_offered')
          return move(grant, { kind: 'identify', ineligible: reason }, actor, { identity })
        case 'expired':
          return move(grant, { kind: 'expire' }, actor)
        case 'canceled':
          return move(grant, { kind: 'cancel' }, actor)
      }
    },

    async expire(grantId: string): Promise<'expired' | 'not_due' | 'final' | 'missing'> {
      const grant = await store.findGrant(grantId)
      if (grant === undefined) return 'missing'
      if (!isOpen(grant.status)) return 'final'
      let result: 'expired' | 'not_due' | 'final' = 'expired'
      await move(
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
    },

    async remind(
      grantId: string,
    ): Promise<'reminded' | 'not_due' | 'done_already' | 'final' | 'missing'> {
      let result: 'reminded' | 'not_due' | 'done_already' | 'final' = 'reminded'
      const outcome = await onOffer(
        grantId,
        (grant) => {
          const expiresAt = grantExpiresAt(grant)
          const due = reminderDueAt(Date.parse(grant.createdAt), expiresAt)
          if (!isOpen(grant.status) || clock() >= expiresAt) result = 'final'
          else if (grant.offer?.remindedAt !== undefined) result = 'done_already'
          else if (due === undefined || clock() < due) result = 'not_due'
          else return { ...(grant.offer ?? { delivery: 'pending' }), remindedAt: iso() }
          return undefined
        },
        () => undefined,
      )
      if (outcome === 'missing') return 'missing'
      if (outcome === 'unavailable') throw new ServiceUnavailable({ cause: new Error(grantId) })
      return result
    },

    async view(input: { token: unknown }): Promise<RecipientView> {
      const link = await linkOf(input.token)
      return viewOf(
        link.email,
        link.siblings,
        (g) => isOpen(g.status) || g.grantId === link.grant.grantId,
      )
    },

    async identify(
      input: { token: unknown; grantId: unknown } & EligibilityInput,
    ): Promise<RecipientView> {
      const { link, grant } = await actOn(input.token, input.grantId)
      const program = await store.findProgramHead(grant.programId)
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
      const decision = decideEligibility(program ?? {}, input, clock())
      const identity: RecipientIdentity = {
        name: input.name,
        ...(decision.country === undefined ? {} : { country: decision.country }),
        ...(decision.age === undefined ? {} : { age: decision.age }),
        at: iso(),
      }
      const changed = await move(
        grant,
        { kind: 'identify', ...(decision.eligible ? {} : { ineligible: decision.reason }) },
        { kind: 'recipient' },
        { identity, accept: (refusal) => refusal === 'already_offered' },
      )
      return after(link, changed)
    },

    async accept(input: { token: unknown; grantId: unknown; termsVersion: number }) {
      const { link, grant } = await actOn(input.token, input.grantId)
      const program = await store.findProgramHead(grant.programId)
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
        grant,
        { kind: 'accept' },
        { kind: 'recipient' },
        { acceptance: { termsVersion: current, at: iso() } },
      )
      return after(link, changed)
    },

    async decline(input: { token: unknown; grantId: unknown }) {
      const { link, grant } = await actOn(input.token, input.grantId)
      const changed = await move(grant, { kind: 'decline' }, { kind: 'recipient' })
      return after(link, changed)
    },

    /**
     * "Send me a new link", as the mail worker carries it out (the public route only queues the
     * address, so its answer waits on nothing the address holds). For each issuer and mode with
     * an open grant for the address, the newest such grant's offer is asked for again (at most
     * once per RESEND_GAP_MS), marked as the recipient's: its mail makes a new link only while the
     * grant holds fewer than MAX_OFFER_TOKENS, so nobody can push a valid link out by asking.
     */
    async requestLink(input: { email: string }): Promise<'requested' | 'limited'> {
      const now = clock()
      if (
        (await store.countAttempt(`address#${input.email}`, {
          now,
          ...RECIPIENT_LIMITS.address,
        })) === 'limited'
      ) {
        return 'limited'
      }
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

    /**
     * A new link token for the grant's mail. `keepOthers` (a link the recipient asked for): none
     * while the grant already holds MAX_OFFER_TOKENS, which would push the oldest out; the
     * issuer's resend and the first mail make one whatever the count.
     */
    async issueOfferLink(
      grantId: string,
      { keepOthers = false }: { keepOthers?: boolean } = {},
    ): Promise<{ token: string; grant: GrantRecord; program: ProgramRecord } | undefined> {
      let grant = await store.findGrant(grantId)
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        if (grant === undefined || !isOpen(grant.status)) return undefined
        const expiresAt = grantExpiresAt(grant)
        if (clock() >= expiresAt) return undefined
        if (keepOthers && (grant.offer?.tokens?.length ?? 0) >= MAX_OFFER_TOKENS) return undefined
        const { token, hash } = newOfferToken()
        const outcome = await store.addOfferToken(grant, {
          hash,
          expiresAt: new Date(expiresAt).toISOString(),
        })
        if (outcome === 'done') {
          const program = await store.findProgramHead(grant.programId)
          if (program === undefined) return undefined
          const tokens = [...(grant.offer?.tokens ?? []), hash]
          return {
            token,
            grant: { ...grant, offer: { ...(grant.offer ?? { delivery: 'pending' }), tokens } },
            program,
          }
        }
        if (outcome === 'unavailable') throw unavailable(grant)
        await afterLostRace(tries)
        grant = await store.findGrant(grantId)
      }
      return undefined
    },

    async recordDelivery(input: {
      grantId: string
      event: DeliveryEvent
      detail?: string
    }): Promise<LifeOutcome> {
      const at = iso()
      const failed =
        input.event === 'bounced' || input.event === 'complained' || input.event === 'failed'
      const outcome = await onOffer(
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
    },

    async resend(input: {
      grantId: string
      issuerId: string
      actor: GrantActor
      audit?: AuditInput
    }) {
      let grant = await owned(input.grantId, input)
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        if (!isOpen(grant.status)) throw refusalError(grant, 'final')
        const now = clock()
        const audit = auditOf(grant, input.actor, 'grant.resend', input.audit)
        const outcome = await store.requestResend(grant, {
          now,
          minGapMs: RESEND_GAP_MS,
          ...(audit === undefined ? {} : { audit }),
        })
        if (outcome === 'too_soon') {
          const last = Date.parse(grant.offer?.resendRequestedAt ?? grant.offer?.lastSentAt ?? '')
          throw new ResendTooSoon(Math.max(1, Math.ceil((last + RESEND_GAP_MS - now) / 1000)))
        }
        if (outcome === 'unavailable') throw unavailable(grant)
        if (outcome !== 'done') await afterLostRace(tries)
        grant = await reread(grant)
        if (outcome === 'done') return grant
      }
      throw unavailable(grant)
    },

    async correctEmail(input: {
      grantId: string
      issuerId: string
      email: string
      actor: GrantActor
      audit?: AuditInput
    }) {
      const email = input.email.trim().toLowerCase()
      let grant = await owned(input.grantId, input)
      for (let tries = 0; tries < MAX_TRIES; tries++) {
        if (!isOpen(grant.status)) throw refusalError(grant, 'final')
        if (grant.recipient.email === email) return grant
        const audit = auditOf(grant, input.actor, 'grant.correct_email', input.audit)
        const outcome = await store.correctEmail(grant, {
          email,
          entry: {
            at: iso(),
            event: 'address',
            actor: actorOnHistory(input.actor),
            detail: 'recipient address corrected; earlier links no longer work',
          },
          ...(audit === undefined ? {} : { audit }),
        })
        if (outcome === 'unavailable') throw unavailable(grant)
        if (outcome !== 'done') await afterLostRace(tries)
        grant = await reread(grant)
        if (outcome === 'done') return grant
      }
      throw unavailable(grant)
    },

    async balance(input: {
      issuerId: string
      mode: Mode
      programId: string
      email: string
    }): Promise<RecipientBalance> {
      const email = input.email.trim().toLowerCase()
      // Every one of them, however many: a balance that stopped at a page would be wrong.
      const grants = await store.grantsOfRecipient(email, {
        issuerId: input.issuerId,
        mode: input.mode,
        programId: input.programId,
      })
      const sum = (keep: (g: GrantRecord) => boolean) =>
        grants.filter(keep).reduce((total, g) => total + g.amount, 0)
      const identity = grants.find((g) => g.identity !== undefined)?.identity
      const name = grants.find((g) => g.recipient.name !== undefined)?.recipient.name
      return {
        email,
        ...(name === undefined ? {} : { name }),
        programId: input.programId,
        accepted: sum((g) => g.status === 'accepted'),
        pending: sum((g) => isOpen(g.status)),
        grants,
        ...(identity === undefined ? {} : { identity }),
      }
    },
  }
}

export type GrantLife = ReturnType<typeof makeGrantLife>

const unavailable = (grant: GrantRecord) =>
  new ServiceUnavailable({ cause: new Error(`Grant ${grant.grantId}: changes kept conflicting`) })

/** Why a change was refused, as the error every door answers with. */
const refusalError = (grant: GrantRecord, refusal: TransitionRefusal) => {
  switch (refusal) {
    case 'final':
      return grant.status === 'accepted'
        ? new GrantAccepted(grant.grantId)
        : new GrantStateConflict(grant.grantId, grant.status, 'it can no longer change.')
    case 'not_offered':
      return new OfferNotIdentified()
    case 'offer_expired':
      return new OfferExpired()
    case 'already_offered':
      return new GrantStateConflict(
        grant.grantId,
        grant.status,
        'the recipient has identified already.',
      )
    case 'not_expired':
      return new GrantStateConflict(grant.grantId, grant.status, 'its offer window has not passed.')
    case 'not_allowed':
      return new GrantStateConflict(
        grant.grantId,
        grant.status,
        'this caller cannot make that change.',
      )
  }
}

export const recipientGrantView = (
  grant: GrantRecord,
  program: ProgramRecord | undefined,
): RecipientGrantView => {
  const rules = program ?? {}
  return {
    grantId: grant.grantId,
    programId: grant.programId,
    programName: program?.name ?? grant.programId,
    ...(program?.description === undefined ? {} : { description: program.description }),
    amount: grant.amount,
    reason: grant.reason,
    state: grant.status,
    ...(grant.rejectionReason === undefined ? {} : { rejectionReason: grant.rejectionReason }),
    expiresAt: new Date(grantExpiresAt(grant)).toISOString(),
    mode: grant.mode,
    fields: eligibilityFields(rules),
    ...(program?.countries === undefined ? {} : { countries: program.countries }),
    ...(program?.minAge === undefined ? {} : { minAge: program.minAge }),
    ...(program?.terms === undefined
      ? {}
      : {
          terms: {
            version: program.terms.version,
            ...(program.terms.text === undefined ? {} : { text: program.terms.text }),
            ...(program.terms.url === undefined ? {} : { url: program.terms.url }),
          },
        }),
    identified: grant.identity !== undefined,
    ...(grant.acceptance === undefined ? {} : { acceptedAt: grant.acceptance.at }),
  }
}
