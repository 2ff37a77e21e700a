/**
 * A grant's life once it is written (issue 19, first step: the rules; nothing calls them yet).
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

/** Who moves a grant: its recipient, a member of the issuer, the integrator's key, or the service. */
export type GrantActor =
  | { kind: 'recipient' }
  | { kind: 'person'; sub: string; email: string }
  | { kind: 'key'; keyId: string }
  | { kind: 'service' }

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
  identify: ['recipient'],
  accept: ['recipient'],
  decline: ['recipient'],
  expire: ['service'],
  cancel: ['person', 'key', 'service'],
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
      return open ? { refused: 'not_expired' } : { to: 'expired' }
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
