import type { RecipientBalance } from '../core/grant-life'
import type { GrantRecord } from '../domain/grant'
import { type TokenValueFields, tokenValueFields, worthAt } from './token-value'

/**
 * A recipient's standing in a program (`GET /programs/{programId}/recipients/{email}/balance`), in
 * the shape a client written for the reference product reads, plus our own fields. The mapping
 * (docs/api.md, "A recipient's balance"):
 * - `type`: always `person` (a recipient is a person, named by an e-mail address).
 * - `person.firstName` / `person.lastName`: the name the recipient identified with on their
 *   page, else the grant's `recipient.name` (newest grant that has one); split at the last space
 *   (`Ann Marie Smith` -> `Ann Marie` / `Smith`); a one-word name is all `firstName`, `lastName`
 *   null; no name known: both null.
 * - `person.email`: the normalised address. `person.dateOfBirth`: always null (never kept: only
 *   "at least N years old: yes/no" is). `person.addressCountryCode`: the country the recipient
 *   gave when the program limits countries (ISO 3166-1 alpha-2), else null.
 * - `tokenAmount`: the shares the recipient holds, those of accepted grants.
 * - `participationStatus`: the furthest the recipient has come in this program: `accepted` (holds
 *   accepted shares), else `offered` (identified, not yet accepted), else `reserved` (an offer
 *   not yet opened), else the state of their newest grant (`rejected`, `expired`, `canceled`),
 *   else `none` (no grant in this program).
 * Ours: `accepted` (= tokenAmount), `pending` (shares of reserved and offered grants, which count
 * as issued but are not held yet), `grantCount`; the program's value of a share (`tokenValue`,
 * `tokenValueCurrency`, `tokenValueCalculatedDate`) and `acceptedValue`, what the accepted shares
 * are worth at it, computed exactly (a decimal string; all null while no value is set).
 */
export type BalanceResource = {
  object: 'balance'
  type: 'person'
  programId: string
  person: {
    firstName: string | null
    lastName: string | null
    email: string
    dateOfBirth: null
    addressCountryCode: string | null
  }
  tokenAmount: number
  participationStatus: GrantRecord['status'] | 'none'
  accepted: number
  pending: number
  grantCount: number
  acceptedValue: string | null
} & TokenValueFields

export const splitName = (
  name: string | undefined,
): { firstName: string | null; lastName: string | null } => {
  const words = (name ?? '')
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0)
  if (words.length === 0) return { firstName: null, lastName: null }
  if (words.length === 1) return { firstName: words[0] as string, lastName: null }
  return { firstName: words.slice(0, -1).join(' '), lastName: words[words.length - 1] as string }
}

const participation = (grants: GrantRecord[]): BalanceResource['participationStatus'] => {
  for (const state of ['accepted', 'offered', 'reserved'] as const) {
    if (grants.some((g) => g.status === state)) return state
  }
  // Newest first from the store; sorted here too, so the answer does not depend on it.
  const newest = [...grants].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))[0]
  return newest?.status ?? 'none'
}

export const toBalanceResource = (balance: RecipientBalance): BalanceResource => ({
  object: 'balance',
  type: 'person',
  programId: balance.programId,
  person: {
    ...splitName(balance.identity?.name ?? balance.name),
    email: balance.email,
    dateOfBirth: null,
    addressCountryCode: balance.identity?.country ?? null,
  },
  tokenAmount: balance.accepted,
  participationStatus: participation(balance.grants),
  accepted: balance.accepted,
  pending: balance.pending,
  grantCount: balance.grants.length,
  ...tokenValueFields(balance.value),
  acceptedValue: worthAt(balance.accepted, balance.value),
})
