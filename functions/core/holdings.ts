import { LinkExpired, ServiceUnavailable, SessionExpired } from '../domain/errors'
import type { GrantRecord } from '../domain/grant'
import {
  HOLDINGS_IDLE_MINUTES,
  HOLDINGS_LINK_MINUTES,
  type Holder,
  type Holdings,
  holdingsOf,
} from '../domain/holdings'
import { hashOfferToken, isOfferTokenShape, newOfferToken } from '../domain/recipient-offer'
import type { GrantLifeStore } from '../stores/grant-life.store'
import type { HoldingsSessionStore } from '../stores/holdings-sessions.store'
import { RECIPIENT_LIMITS } from './grant-life/life-context'
import { limitAttempts } from './grant-life/recipient-steps'
import {
  programsWithTerms,
  type RecipientGrantView,
  recipientGrantView,
} from './grant-life/recipient-view'

/**
 * The recipient's holdings (issue 32, docs/decisions/holdings-sign-in.md): a sign-in link by
 * e-mail, a session, and every grant of the address in the session's mode. Tokens and sessions are
 * 256 random bits of which only the SHA-256 is kept (stores/holdings-sessions.store.ts); they have
 * the offer link's shape, so they are made and checked by the same rules (domain/recipient-offer.ts).
 * The grant steps from the holdings page (identify, accept, decline) are the offer page's use case
 * (core/grant-life.ts) given the session's holder instead of a link token.
 */
export type HoldingsDeps = {
  store: Pick<
    GrantLifeStore,
    'grantsOfRecipient' | 'findProgramHeads' | 'findTermsTexts' | 'countAttempt'
  >
  sessions: HoldingsSessionStore
  clock: () => number
  /** The issuer's name as shown (absent: the issuer's id). */
  issuerName: (issuerId: string) => Promise<string | undefined>
}

/** One sign-in link to mail: whose, the token (shown once), the newest grant it covers. */
export type HoldingsLink = { holder: Holder; token: string; expiresAt: string; newest: GrantRecord }

export type HoldingsSessionAnswer = {
  object: 'holdings_session'
  session: string
  mode: Holder['mode']
  idleMinutes: number
  expiresAt: string
}

const IDLE_MS = HOLDINGS_IDLE_MINUTES * 60_000

/** The session token of an `Authorization: Bearer <token>` header, if it is one. */
export const bearerOf = (authorization: string | undefined): string | undefined =>
  /^Bearer ([A-Za-z0-9_-]+)$/i.exec(authorization?.trim() ?? '')?.[1]

export const makeHoldings = ({ store, sessions, clock, issuerName }: HoldingsDeps) => {
  const iso = (ms: number) => new Date(ms).toISOString()

  /** The session's holder, the session moved on; one answer for unknown, ended, idle too long. */
  const holder = async (session: unknown): Promise<Holder> => {
    if (!isOfferTokenShape(session)) throw new SessionExpired()
    const live = await sessions.touchSession(hashOfferToken(session), {
      now: clock(),
      idleMs: IDLE_MS,
    })
    if (live === undefined) throw new SessionExpired()
    return {
      email: live.email,
      mode: live.mode,
      ...(live.issuerId === undefined ? {} : { issuerId: live.issuerId }),
    }
  }

  return {
    holder,

    /**
     * The sign-in links for `email`, as the mail worker makes them (the public route only queues
     * the address): the attempt is counted per address first; then one link for its LIVE grants
     * (every issuer), and one per issuer of its TEST grants (that issuer's only). No grants: none.
     */
    async issueLinks(input: { email: string }): Promise<HoldingsLink[] | 'limited'> {
      const now = clock()
      const rule = { now, ...RECIPIENT_LIMITS.address }
      if ((await store.countAttempt(`holdings#${input.email}`, rule)) === 'limited') {
        return 'limited'
      }
      // Newest first: the first grant of each group is its newest.
      const groups = new Map<string, { holder: Holder; newest: GrantRecord }>()
      for (const grant of await store.grantsOfRecipient(input.email)) {
        const key = grant.mode === 'LIVE' ? 'LIVE' : `TEST#${grant.issuerId}`
        if (groups.has(key)) continue
        groups.set(key, {
          holder: {
            email: input.email,
            mode: grant.mode,
            ...(grant.mode === 'TEST' ? { issuerId: grant.issuerId } : {}),
          },
          newest: grant,
        })
      }
      const expiresAt = iso(now + HOLDINGS_LINK_MINUTES * 60_000)
      const links: HoldingsLink[] = []
      for (const group of groups.values()) {
        const { token, hash } = newOfferToken()
        await sessions.putLinkToken({ hash, holder: group.holder, expiresAt })
        links.push({ ...group, token, expiresAt })
      }
      return links
    },

    /** A link's token for a session: used once; unknown, used or expired get one answer (410). */
    async startSession(token: unknown): Promise<HoldingsSessionAnswer> {
      if (!isOfferTokenShape(token)) throw new LinkExpired()
      const hash = hashOfferToken(token)
      await limitAttempts({ store, clock }, `holdings-token#${hash}`, RECIPIENT_LIMITS.token)
      const made = newOfferToken()
      const session = await sessions.redeemLinkToken(hash, {
        hash: made.hash,
        now: clock(),
        idleMs: IDLE_MS,
      })
      if (session === 'gone') throw new LinkExpired()
      if (session === 'unavailable') throw new ServiceUnavailable()
      return {
        object: 'holdings_session',
        session: made.token,
        mode: session.mode,
        idleMinutes: HOLDINGS_IDLE_MINUTES,
        expiresAt: session.expiresAt,
      }
    },

    /** Ends the session (sign-out); an unknown or ended one answers as expired. */
    async end(session: unknown): Promise<void> {
      if (!isOfferTokenShape(session)) throw new SessionExpired()
      if ((await sessions.deleteSession(hashOfferToken(session), clock())) === 'gone') {
        throw new SessionExpired()
      }
    },

    /** Every grant of the session's address in its mode (and issuer, for TEST), grouped. */
    async view(session: unknown): Promise<Holdings<RecipientGrantView>> {
      const who = await holder(session)
      const grants = await store.grantsOfRecipient(who.email, {
        mode: who.mode,
        ...(who.issuerId === undefined ? {} : { issuerId: who.issuerId }),
      })
      const programs = await programsWithTerms(
        store,
        grants.map((g) => g.programId),
      )
      const issuerIds = [...new Set(grants.map((g) => g.issuerId))]
      const names = await Promise.all(issuerIds.map(issuerName))
      return holdingsOf({
        holder: who,
        grants,
        programs,
        issuerNames: new Map(issuerIds.map((id, i) => [id, names[i]])),
        now: clock(),
        offerOf: (grant) => recipientGrantView(grant, programs.get(grant.programId)),
      })
    },
  }
}

export type HoldingsUseCase = ReturnType<typeof makeHoldings>
