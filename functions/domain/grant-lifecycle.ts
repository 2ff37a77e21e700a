/**
 * A grant's life once it is written: the rules every door (the integrator API, the management API,
 * the recipient's page, the sweep, the CLI, TEST simulation) moves a grant by.
 *
 *   reserved --identify (eligible)----> offered --accept--> accepted (final)
 *   reserved --identify (ineligible)--> rejected (ineligible_age | ineligible_country)
 *   reserved | offered --decline------> rejected (declined)
 *   reserved | offered --expire-------> expired   (the offer window has passed)
 *   reserved | offered --cancel-------> canceled  (the issuer, or the integrator's key)
 *
 * Reserved and offered shares count as issued; rejected, expired and canceled give theirs back to
 * the slices they came from (docs/decisions/returning-shares.md), once, in the transaction that
 * makes the change.
 * Pure: the store makes each transition conditional on the state it was decided from, so of two
 * racing transitions exactly one is written.
 */

export const GRANT_STATES = [
  'reserved',
  'offered',
  'accepted',
  'rejected',
  'expired',
  'canceled',
] as const
export type GrantState = (typeof GRANT_STATES)[number]

export const REJECTION_REASONS = ['declined', 'ineligible_age', 'ineligible_country'] as const
export type RejectionReason = (typeof REJECTION_REASONS)[number]

/** The states whose shares count as issued and that may still change. */
export const OPEN_STATES: readonly GrantState[] = ['reserved', 'offered']

/** Whether a grant in `state` may still change (its offer is open): reserved or offered. */
export const isGrantOpen = (state: GrantState) => OPEN_STATES.includes(state)

/** At most one resend (or new link) per grant in this long. */
export const RESEND_GAP_MS = 10 * 60_000

/**
 * Who moves a grant: its recipient, a member of the issuer, the integrator's key, the operator's
 * CLI, the service (expiry, delivery), or TEST-mode simulation (magic addresses and the TEST-only
 * move call), which may do what a recipient does and is refused on LIVE grants by the use case.
 */
export type GrantActor =
  | { kind: 'recipient' }
  | { kind: 'person'; sub: string; email: string }
  | { kind: 'key'; keyId: string }
  | { kind: 'operator' }
  | { kind: 'service' }
  | { kind: 'simulation' }

export type GrantEvent =
  | { kind: 'identify'; ineligible?: Exclude<RejectionReason, 'declined'> }
  | { kind: 'accept' }
  | { kind: 'decline' }
  | { kind: 'expire' }
  | { kind: 'cancel' }

/** Why an event cannot move the grant; nothing is written. */
export type TransitionRefusal =
  /** Accepted, rejected, expired or canceled: nothing moves it any more. */
  | 'final'
  /** Accept before the recipient identified (the grant is still reserved). */
  | 'not_offered'
  /** Identify on an offered grant: done already. */
  | 'already_offered'
  /** Accept, decline or identify after the offer window: it can only expire now. */
  | 'offer_expired'
  /** Expire before the window has passed. */
  | 'not_expired'
  /** This actor may not cause this event (a key cannot accept, a recipient cannot cancel). */
  | 'not_allowed'

export type Transition = { to: GrantState; reason?: RejectionReason }

const ALLOWED: Record<GrantEvent['kind'], readonly GrantActor['kind'][]> = {
  identify: ['recipient', 'simulation'],
  accept: ['recipient', 'simulation'],
  decline: ['recipient', 'simulation'],
  expire: ['service', 'simulation'],
  cancel: ['person', 'key', 'operator', 'service', 'simulation'],
}

/**
 * Where `event` by `actor` takes a grant in `state` at `now`, or why it cannot. `expiresAt` is the
 * end of the offer window (epoch ms): at and after it, the offer can only expire or be canceled.
 */
export const nextState = (
  grant: { state: GrantState; expiresAt: number },
  event: GrantEvent,
  actor: GrantActor,
  now: number,
): Transition | { refused: TransitionRefusal } => {
  if (!ALLOWED[event.kind].includes(actor.kind)) return { refused: 'not_allowed' }
  if (!OPEN_STATES.includes(grant.state)) return { refused: 'final' }
  const open = now < grant.expiresAt
  switch (event.kind) {
    case 'identify':
      if (!open) return { refused: 'offer_expired' }
      if (grant.state === 'offered') return { refused: 'already_offered' }
      return event.ineligible === undefined
        ? { to: 'offered' }
        : { to: 'rejected', reason: event.ineligible }
    case 'accept':
      if (!open) return { refused: 'offer_expired' }
      if (grant.state !== 'offered') return { refused: 'not_offered' }
      return { to: 'accepted' }
    case 'decline':
      if (!open) return { refused: 'offer_expired' }
      return { to: 'rejected', reason: 'declined' }
    case 'expire':
      // Simulation expires a TEST grant on demand (the TEST-only move call).
      return open && actor.kind !== 'simulation' ? { refused: 'not_expired' } : { to: 'expired' }
    case 'cancel':
      return { to: 'canceled' }
  }
}

/** Whether a transition to `state` gives the grant's shares back to the pool. */
export const returnsShares = (state: GrantState) =>
  state === 'rejected' || state === 'expired' || state === 'canceled'

/** Whether a grant in `state` counts in its program's `issued`. */
export const countsAsIssued = (state: GrantState) =>
  state === 'reserved' || state === 'offered' || state === 'accepted'

/** One line of a grant's history: every transition and every delivery event, written with it. */
export type GrantHistoryEntry = {
  at: string
  /**
   * `transition`: the state moved to `state`; `delivery`: something happened to its e-mail;
   * `address`: the issuer corrected the recipient's address (earlier links stop working).
   */
  event: 'transition' | 'delivery' | 'address'
  state?: GrantState
  reason?: RejectionReason
  /** For `delivery`: what happened (`sent`, `test_inbox`, `reminded`, `bounced`, `complained`, `failed`). */
  delivery?: DeliveryEvent
  /** Who: `recipient`, `service`, `simulation`, `operator`, `key:<keyId>`, `person:<email>`. */
  actor: string
  /** Short, non-secret: an SES bounce type, a corrected address's domain. */
  detail?: string
}

export const DELIVERY_EVENTS = [
  'sent',
  'test_inbox',
  'reminded',
  'bounced',
  'complained',
  'failed',
] as const
export type DeliveryEvent = (typeof DELIVERY_EVENTS)[number]

/** How an actor is written on a history line (no secret: a key's id, never its hash). */
export const actorOnHistory = (actor: GrantActor): string => {
  switch (actor.kind) {
    case 'key':
      return `key:${actor.keyId}`
    case 'person':
      return `person:${actor.email}`
    default:
      return actor.kind
  }
}

/** The offer window when a program sets none (days). */
export const DEFAULT_OFFER_DAYS = 30
/** A reminder goes out this long before an offer expires (ms), if the window is longer than that. */
export const REMINDER_BEFORE_MS = 3 * 24 * 60 * 60 * 1000

/** When an offer made at `createdAt` (ISO) under a window of `offerDays` expires (ISO). */
export const offerExpiresAt = (createdAtMs: number, offerDays = DEFAULT_OFFER_DAYS) =>
  new Date(createdAtMs + offerDays * 24 * 60 * 60 * 1000).toISOString()

/** When the reminder is due (ms), or undefined when the window is too short for one. */
export const reminderDueAt = (createdAtMs: number, expiresAtMs: number) => {
  const at = expiresAtMs - REMINDER_BEFORE_MS
  return at > createdAtMs ? at : undefined
}

/**
 * End of a grant's offer window (ms): its `expiresAt`, or for a grant made before offers existed,
 * createdAt + DEFAULT_OFFER_DAYS.
 */
export const grantExpiresAt = (grant: { expiresAt?: string | undefined; createdAt: string }) =>
  grant.expiresAt !== undefined
    ? Date.parse(grant.expiresAt)
    : Date.parse(grant.createdAt) + DEFAULT_OFFER_DAYS * 24 * 60 * 60 * 1000
