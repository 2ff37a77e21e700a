import type { Mode } from '../domain/api-key'
import type { GrantOffer, GrantRecord, RecipientIdentity } from '../domain/grant'
import type { GrantHistoryEntry, GrantState, RejectionReason } from '../domain/grant-lifecycle'
import type { AuditEntry } from '../domain/people'
import type { ProgramRecord } from '../domain/program'
import type { TermsRecord } from '../domain/program-shards'
import type { CallOptions } from './grants.store'

/**
 * The writes of a grant's life after it is made (functions/core/grant-life.ts decides them; this
 * writes them). Each is one transaction conditional on what the decision was made from, and
 * reports an outcome, leaving HTTP to the handler:
 * - `done`: written;
 * - `stale`: the grant is no longer what it was read as (another transition won): nothing written,
 *   read again and decide again;
 * - `unavailable`: DynamoDB conflicted or throttled every attempt: nothing written, try later.
 */
export type LifeOutcome = 'done' | 'stale' | 'unavailable'

export type GrantChange = {
  /** The grant as read: its `status` (and for an address change its e-mail) is the condition. */
  grant: GrantRecord
  /** The new state; absent for a history-only change (a delivery event). */
  to?: GrantState
  reason?: RejectionReason
  /** The history line; absent only for a change nobody reads as an event (a reminder's due mark). */
  entry?: GrantHistoryEntry
  identity?: RecipientIdentity
  acceptance?: { termsVersion: number; at: string }
  /** Replaces the grant's offer (delivery state, tokens). */
  offer?: GrantOffer
  /**
   * Give the grant's shares back to the slices it drew from (its `shard` or `draws`; the head for
   * a program without shards; a chosen shard for grants from before draws were recorded), in the
   * same transaction: `program` says how its pool is laid out.
   */
  returnShares?: { program: Pick<ProgramRecord, 'programId' | 'shards' | 'pool'> }
  /** Written in the same transaction (management and CLI changes). */
  audit?: AuditEntry
} & CallOptions

/** Which of a recipient's grants: of one issuer, mode, program; only open ones (reserved, offered). */
export type RecipientScope = {
  issuerId?: string
  mode?: Mode
  programId?: string
  open?: boolean
}

/** A link token's item (grants table, `grantId: offer-token#<hash>`): which grant it was made for. */
export type OfferTokenRecord = { grantId: string; tokenOf: string; expiresAt: string }

export interface GrantLifeStore {
  findGrant(grantId: string, options?: CallOptions): Promise<GrantRecord | undefined>
  /** The program's head (counters not summed), strongly consistent. */
  findProgramHead(programId: string, options?: CallOptions): Promise<ProgramRecord | undefined>
  /** Several grants by id, strongly consistent (missing ones left out). */
  findGrants(grantIds: readonly string[], options?: CallOptions): Promise<GrantRecord[]>
  /** Several program heads by id, strongly consistent. */
  findProgramHeads(programIds: readonly string[], options?: CallOptions): Promise<ProgramRecord[]>
  /** The terms texts of several programs (their `<programId>#terms` items), in one read. */
  findTermsTexts(programIds: readonly string[], options?: CallOptions): Promise<TermsRecord[]>
  /**
   * Every grant of a recipient (by normalised e-mail) within `scope`, newest first, from the
   * `byRecipient` index page after page (never the newest N: what others grant to the address
   * must not push a grant out of reach), then re-read strongly consistent (a grant whose address
   * or state changed since is dropped).
   */
  grantsOfRecipient(
    email: string,
    scope?: RecipientScope,
    options?: CallOptions,
  ): Promise<GrantRecord[]>
  /** One transition or delivery event, with its history line, returns and audit entry. */
  change(change: GrantChange): Promise<LifeOutcome>
  /**
   * A new link token for an open grant: its item and its hash on the grant (at most
   * MAX_OFFER_TOKENS kept: the oldest is dropped), in one transaction on the grant's state and
   * address as read.
   */
  addOfferToken(
    grant: GrantRecord,
    token: { hash: string; expiresAt: string },
    options?: CallOptions,
  ): Promise<LifeOutcome>
  findOfferToken(hash: string, options?: CallOptions): Promise<OfferTokenRecord | undefined>
  /**
   * The issuer (or, `by: 'recipient'`, the recipient's "send me a new link") asks for the offer
   * again: `offer.resendRequestedAt` set (the stream reader sends), if the last request is older
   * than `minGapMs`; `too_soon` otherwise.
   */
  requestResend(
    grant: GrantRecord,
    input: { now: number; minGapMs: number; by?: 'issuer' | 'recipient'; audit?: AuditEntry },
    options?: CallOptions,
  ): Promise<LifeOutcome | 'too_soon'>
  /**
   * The issuer corrects the recipient's address of an open grant: `recipient.email` and
   * `recipientKey` change, every link token of the old address stops working (tokens cleared),
   * a history line and the audit entry are written; the stream reader sends the offer anew.
   */
  correctEmail(
    grant: GrantRecord,
    input: { email: string; entry: GrantHistoryEntry; audit?: AuditEntry },
    options?: CallOptions,
  ): Promise<LifeOutcome>
  /**
   * Counts one attempt against `limit` per window for `key` (a token hash, an address): `limited`
   * once the window has had `limit` (nothing is counted then).
   */
  countAttempt(
    key: string,
    input: { now: number; windowMs: number; limit: number },
    options?: CallOptions,
  ): Promise<'allowed' | 'limited'>
}
