import type { Mode } from './api-key'
import type { GrantHistoryEntry, GrantState, RejectionReason } from './grant-lifecycle'
import { decodeCursor, encodeCursor, ISO_TIME } from './page-cursor'
import type { ShardTake } from './program-shards'

/** A grant: the record every door writes and reads, and the listing's cursor over it. */

/** Item of the grants table. The item is also the idempotency record (see ids.ts). */
export type GrantRecord = {
  grantId: string
  programId: string
  issuerId: string
  mode: Mode
  recipient: { email: string; name?: string }
  reason: string
  amount: number
  /** Where the grant is in its life (grant-lifecycle.ts); written `reserved`. */
  status: GrantState
  /** Set with `rejected`: why. */
  rejectionReason?: RejectionReason
  createdAt: string
  /**
   * End of the offer window (ISO): createdAt + the program's offer window. Absent on grants made
   * before offers existed: they read as createdAt + DEFAULT_OFFER_DAYS (grantExpiresAt).
   */
  expiresAt?: string
  /**
   * `recipient.email` again, top level, as the key of the `byRecipient` index (a recipient's grants
   * across programs: their page, their balance). Changes when the issuer corrects the address.
   */
  recipientKey?: string
  /** The one counter shard that gave the whole amount (a sharded program's usual grant). */
  shard?: number
  /** The shards a grant taken in parts drew from, and how much from each. */
  draws?: ShardTake[]
  /** Every transition and delivery event after creation, oldest first (grant-lifecycle.ts). */
  history?: GrantHistoryEntry[]
  /** The offer e-mail: its links (hashes only), and what happened to it. */
  offer?: GrantOffer
  /** What the recipient's identification decided; never the date of birth. */
  identity?: RecipientIdentity
  /** Set with `accepted`: the terms the recipient accepted, and when. */
  acceptance?: { termsVersion: number; at: string }
  /** SHA-256 of the normalised request; tells a replay from a reuse of the Idempotency-Key. */
  requestHash: string
  idempotencyKey?: string
  /** The API key that made it; absent for a grant sent from the management API. */
  keyId?: string
  /**
   * The request that made it (domain/request-id.ts): the request log's entry. Not part of the
   * grant API's resource; the management API links it.
   */
  requestId?: string
  /**
   * The person who sent it through the management API (one grant, or a batch they committed).
   * Never part of the grant API's resource (functions/http/grant-resource.ts): integrators do not see who.
   */
  sentBy?: GrantSender
  /** For a grant of a batch (send to many): the batch and the CSV row it came from. */
  batch?: { batchId: string; row: number }
  /** The index slot of the program's listing (grant-slots.ts); never shown. */
  programSlot?: string
}

export type GrantOffer = {
  /** SHA-256 (hex) of each link token still valid for this grant; a corrected address clears them. */
  tokens?: string[]
  /** `pending` until the first offer e-mail is handed over; `failed` after a bounce or complaint. */
  delivery: 'pending' | 'sent' | 'test_inbox' | 'failed'
  /** How many offer e-mails were sent (first send, resends, relinks). */
  sends?: number
  lastSentAt?: string
  /** Set by a resend from the management API; the stream reader sends the offer again. */
  resendRequestedAt?: string
  /**
   * `recipient`: that request was the recipient's "send me a new link" (the mail then makes a
   * link only while fewer than MAX_OFFER_TOKENS are valid); absent: the issuer's resend.
   */
  resendRequestedBy?: 'recipient'

  remindedAt?: string
}

export type RecipientIdentity = {
  name: string
  /** ISO 3166-1 alpha-2, when the program limits countries. */
  country?: string
  /** When the program has a minimum age: that age, and whether the recipient is at least it. */
  age?: { atLeast: number; passed: boolean }
  at: string
}

/** A member of the issuer, as a grant records its sender (access tokens carry no e-mail). */
export type GrantSender = { sub: string; email: string }

/**
 * Where a page of a program's grants ends: the last grant's `createdAt` and id, a position in the
 * order (createdAt desc, grantId desc) whatever slot the grant is in. The program always comes
 * from the request, never from a cursor, so a cursor can only move within the caller's own
 * program.
 */
export type GrantCursor = { createdAt: string; grantId: string }

/** A grant id as the service makes them. */
export const GRANT_ID = /^gr_[0-9a-z]{26}$/

/** Opaque to callers: base64url of `<createdAt> <grantId>`. */
export const encodeGrantCursor = (cursor: GrantCursor) =>
  encodeCursor(cursor.createdAt, cursor.grantId)

/** The position a cursor stands for, or undefined when it is not one this service made. */
export const decodeGrantCursor = (cursor: unknown): GrantCursor | undefined => {
  const parts = decodeCursor(cursor, [ISO_TIME, GRANT_ID])
  return parts && { createdAt: parts[0], grantId: parts[1] }
}
