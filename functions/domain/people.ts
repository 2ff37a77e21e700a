/**
 * People and their rights in an issuer: the records and the rules on them, in one place that the
 * stores, the use cases, the management routes and the CLI all import.
 */

/** Lowest first: each role can do everything the ones before it can. */
export const ROLES = ['viewer', 'admin', 'owner'] as const
export type Role = (typeof ROLES)[number]

/**
 * viewer: reads everything of the issuer (programs, keys without secrets, grants, members, audit).
 * admin: also creates and changes programs, creates, rolls and revokes keys, and sends grants.
 * owner: also manages members.
 */
export const roleAllows = (role: Role, needed: Role) => ROLES.indexOf(role) >= ROLES.indexOf(needed)

export const isRole = (value: unknown): value is Role =>
  typeof value === 'string' && (ROLES as readonly string[]).includes(value)

/**
 * Item of the memberships table: a person's role in one issuer. The person is their Cognito
 * `sub`, which exists from the invitation on; `email` is kept here because access tokens carry
 * none. `status` is `invited` until the person first signs in and sets a password.
 */
export type MembershipRecord = {
  issuerId: string
  sub: string
  email: string
  role: Role
  status: 'invited' | 'active'
  createdAt: string
  /** Who invited them: a person's e-mail, or "operator CLI". */
  invitedBy: string
}

/** Who made a change: a signed-in person, or the operator through the admin CLI. */
export type Actor =
  | { kind: 'person'; sub: string; email: string }
  | { kind: 'operator'; label: 'operator CLI' }
  /** The service itself, deciding by a rule no person applied (the webhook sender disabling an endpoint). */
  | { kind: 'service'; label: 'webhook sender' }

export const OPERATOR: Actor = { kind: 'operator', label: 'operator CLI' }
export const WEBHOOK_SENDER: Actor = { kind: 'service', label: 'webhook sender' }

/** How an actor is named on records people read (`createdBy`, `invitedBy`): e-mail or label. */
export const actorLabel = (actor: Actor) => (actor.kind === 'person' ? actor.email : actor.label)

/**
 * Item of the audit table, written in the same transaction as the change it records and never
 * changed or deleted. No secret, key hash or token is ever part of one.
 */
export type AuditEntry = {
  issuerId: string
  /** ISO time, then a random suffix: sorts by time, unique. */
  entryId: string
  at: string
  actor: Actor
  /** What was done, e.g. `program.create`, `key.revoke`, `member.invite`. */
  action: string
  target: {
    type: 'issuer' | 'program' | 'key' | 'member' | 'grant' | 'batch' | 'webhook_endpoint'
    id: string
  }
  /** The request id of the management call; absent for the CLI. */
  requestId?: string
  /** Small, non-secret facts about the change (a new role, a mode, an amount). */
  details?: Record<string, string | number | boolean | null>
}
