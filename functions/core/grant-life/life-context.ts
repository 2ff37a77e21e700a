import type { Mode } from '../../domain/api-key'
import { auditEntry } from '../../domain/audit-entry'
import {
  GrantAccepted,
  GrantNotFound,
  GrantStateConflict,
  OfferExpired,
  OfferNotIdentified,
  ServiceUnavailable,
} from '../../domain/errors'
import type { GrantRecord } from '../../domain/grant'
import type { GrantActor, TransitionRefusal } from '../../domain/grant-lifecycle'
import type { Actor } from '../../domain/people'
import type { GrantLifeStore } from '../../stores/grant-life.store'

/** The pieces every step of a grant's life shares: the store, the clock, ownership, errors. */

export type GrantLifeDeps = {
  store: GrantLifeStore
  clock: () => number
  /** The pause after a lost race (tests and models pass theirs); the real one by default. */
  sleep?: (ms: number) => Promise<void>
  random?: () => number
}

/** What each step is built from: the deps, with the clock as an ISO string beside it. */
export type LifeContext = Required<GrantLifeDeps> & { iso: () => string }

// The console shows the same gap: one definition, in the domain.
export { RESEND_GAP_MS } from '../../domain/grant-lifecycle'
/** Public endpoints: attempts per link token, and new-link requests per address. */
export const RECIPIENT_LIMITS = {
  token: { windowMs: 15 * 60_000, limit: 30 },
  address: { windowMs: 60 * 60_000, limit: 5 },
} as const

export type Owner = { issuerId: string; mode?: Mode | undefined; programId?: string | undefined }
export type AuditInput = { requestId?: string | undefined } | undefined

/** The grant, if it belongs to the caller's issuer (and mode, and program): else not found. */
export const owned = async (
  store: GrantLifeStore,
  grantId: string,
  owner: Owner,
): Promise<GrantRecord> => {
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

/** The grant as it is now; gone meanwhile answers as not found. */
export const reread = async (store: GrantLifeStore, grant: GrantRecord) => {
  const fresh = await store.findGrant(grant.grantId)
  if (fresh === undefined) throw new GrantNotFound(grant.grantId)
  return fresh
}

/** The audit entry of a person's or the operator's change; none for other actors or no audit. */
export const auditOf = (
  clock: () => number,
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

export const unavailable = (grant: GrantRecord) =>
  new ServiceUnavailable({ cause: new Error(`Grant ${grant.grantId}: changes kept conflicting`) })

/** Why a change was refused, as the error every door answers with. */
export const refusalError = (grant: GrantRecord, refusal: TransitionRefusal) => {
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
