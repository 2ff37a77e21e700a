import type { AuditEntry, MembershipRecord, Role } from '../domain/people'

/** `signal` aborts the call (a request's deadline): the store then throws an AbortError. */
export type CallOptions = { signal?: AbortSignal | undefined }

/**
 * What a membership write came to. Stores report outcomes; the use cases decide what they mean
 * (a 404, a 409, another attempt). Unavailability (throttling, timeouts) is thrown as the SDK
 * error, which the HTTP layer answers 503 and the CLI prints.
 *
 * - `done`: the change and its audit entry are written, together.
 * - `stale`: the member's item is not as it was read (gone, or another role): nothing written.
 * - `witness_gone`: the other owner the change relied on is no longer an owner: nothing written.
 * - `conflict`: another transaction held one of the items (real DynamoDB only): nothing written.
 * - `unavailable`: DynamoDB cancelled the transaction for throttling: nothing written.
 */
export type WriteOutcome = 'done' | 'stale' | 'witness_gone' | 'conflict' | 'unavailable'

/** What an add came to: `exists` when the person already has a membership of the issuer. */
export type AddOutcome = 'done' | 'exists' | 'conflict' | 'unavailable'

/**
 * The memberships of an issuer and the audit entries of their changes. Every write is one
 * TransactWriteItems with the audit entry in it: both are written or neither.
 */
export interface MembersStore {
  /** One membership, strongly consistent. */
  get(issuerId: string, sub: string, options?: CallOptions): Promise<MembershipRecord | undefined>
  /** Every membership of the issuer (pending invitations included), strongly consistent. */
  list(issuerId: string, options?: CallOptions): Promise<MembershipRecord[]>
  /** The issuer's name, or undefined when there is no such issuer. */
  issuerName(issuerId: string, options?: CallOptions): Promise<string | undefined>
  /** A new membership, on condition that the person has none in this issuer yet. */
  add(record: MembershipRecord, audit: AuditEntry, options?: CallOptions): Promise<AddOutcome>
  /**
   * The member's role becomes `role`, on condition that it is still `current.role`. `witness`: the
   * sub of another member who must still be an owner when the change commits (required when an
   * owner stops being one; see members.dynamodb.ts for why this keeps an owner).
   */
  changeRole(
    input: { current: MembershipRecord; role: Role; witness?: string | undefined },
    audit: AuditEntry,
    options?: CallOptions,
  ): Promise<WriteOutcome>
  /** Deletes the membership, on condition that its role is still `current.role`; `witness` as above. */
  remove(
    input: { current: MembershipRecord; witness?: string | undefined },
    audit: AuditEntry,
    options?: CallOptions,
  ): Promise<WriteOutcome>
  /**
   * Records that an invitation was sent again: only the audit entry, on condition that the
   * membership still exists and is still `invited`.
   */
  recordResend(
    current: MembershipRecord,
    audit: AuditEntry,
    options?: CallOptions,
  ): Promise<WriteOutcome>
  /**
   * `invited` becomes `active` once the identity provider says the person has signed in. Not a
   * change anyone made, so no audit entry; a no-op when the item is gone or already active.
   */
  markActive(issuerId: string, sub: string, options?: CallOptions): Promise<void>
  /**
   * The names of the issuers where this person has a pending (`invited`) membership, other than
   * `exceptIssuerId`, sorted: what a new invitation e-mail must name as well, since its temporary
   * password replaces theirs. The person's issuers come from the `bySub` index (eventually
   * consistent), each one's status from the table itself.
   */
  pendingIssuerNames(sub: string, exceptIssuerId: string, options?: CallOptions): Promise<string[]>
  /**
   * Every pending membership of the person among `issuerIds` becomes `active`: they have signed
   * in (GET /manage/me, which the console calls after every sign-in). No audit entry, as
   * markActive.
   */
  acceptInvitations(sub: string, issuerIds: readonly string[], options?: CallOptions): Promise<void>
}
