import type { Holder } from '../domain/holdings'
import type { CallOptions } from './grants.store'

/**
 * The recipient's holdings sign-in (docs/decisions/holdings-sign-in.md): link tokens and sessions,
 * items of the grants table keyed by the SHA-256 of their token (the token itself is never kept):
 * `holdings-token#<hash>` (15 minutes, used once) and `holdings-session#<hash>` (30 minutes idle).
 * The address is kept as `holderKey`, never `recipientKey`: these items must never look like a
 * grant to the `byRecipient` index or to anything that reads a recipient's grants.
 */

export type { Holder }

export type HoldingsSession = Holder & { lastUsedAt: string; expiresAt: string }

export interface HoldingsSessionStore {
  /** A new sign-in link's token item (its hash as the key), valid until `expiresAt`. */
  putLinkToken(
    input: { hash: string; holder: Holder; expiresAt: string },
    options?: CallOptions,
  ): Promise<void>
  /**
   * Uses the link token `hash` once: deletes it and puts the session `session.hash` in one
   * conditional transaction, if the token exists and is not past its time at `now`. `gone`: the
   * token is unknown, used (by this or a racing call) or expired; nothing written. `unavailable`:
   * DynamoDB conflicted or throttled every attempt; nothing written, try later.
   */
  redeemLinkToken(
    hash: string,
    session: { hash: string; now: number; idleMs: number },
    options?: CallOptions,
  ): Promise<HoldingsSession | 'gone' | 'unavailable'>
  /**
   * Uses the session `hash` at `now`: if it exists and has not expired, moves `lastUsedAt` to now
   * and its end to now + `idleMs` (one conditional update) and gives it; else undefined.
   */
  touchSession(
    hash: string,
    input: { now: number; idleMs: number },
    options?: CallOptions,
  ): Promise<HoldingsSession | undefined>
  /** Ends the session `hash` if it is live at `now` (one conditional delete): `gone` otherwise. */
  deleteSession(hash: string, now: number, options?: CallOptions): Promise<'done' | 'gone'>
}
