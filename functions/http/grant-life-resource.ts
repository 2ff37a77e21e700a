import type { GrantRecord } from '../domain/grant'
import { type GrantHistoryEntry, grantExpiresAt } from '../domain/grant-lifecycle'
import { type GrantResource, toGrantResource } from './grant-resource'

/**
 * A grant's life as the integrator API shows it: the creation's 201 and its replay, the GET,
 * cancel, the TEST move (all the same GrantDetail) and the listing (without the history). Pure
 * and small: the grant path carries it (no crypto, no schema).
 */

/** A history line as an integrator sees it. */
export type GrantHistoryView = GrantHistoryEntry

/**
 * Who moved the grant, for an integrator: the issuer's people are `person`, never their e-mail
 * (as with `sentBy`, who in the issuer did it is not part of the grant API); a key, the operator,
 * the recipient, the service and TEST simulation are named as the history has them.
 */
export const integratorActor = (actor: string) => (actor.startsWith('person:') ? 'person' : actor)

/**
 * The resource, plus why it was rejected (null unless `rejected`), when its offer expires (the
 * window of a grant made before offers existed: 30 days from creation), and its offer e-mail's
 * delivery (`pending` until the first is handed over; `failed` after a bounce or complaint).
 */
export type GrantLifeResource = GrantResource & {
  rejectionReason: NonNullable<GrantRecord['rejectionReason']> | null
  expiresAt: string
  delivery: NonNullable<GrantRecord['offer']>['delivery']
}

export const toGrantLifeResource = (record: GrantRecord): GrantLifeResource => ({
  ...toGrantResource(record),
  rejectionReason: record.rejectionReason ?? null,
  expiresAt: new Date(grantExpiresAt(record)).toISOString(),
  delivery: record.offer?.delivery ?? 'pending',
})

/** With the history: every transition and delivery event, oldest first. */
export type GrantDetail = GrantLifeResource & { history: GrantHistoryView[] }

export const toGrantDetail = (record: GrantRecord): GrantDetail => ({
  ...toGrantLifeResource(record),
  history: (record.history ?? []).map((entry) => ({
    ...entry,
    actor: integratorActor(entry.actor),
  })),
})
