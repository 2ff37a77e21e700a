import { createHash, randomBytes } from 'node:crypto'
import { type GrantState, OPEN_STATES, type RejectionReason } from './grant-lifecycle'
import type { ProgramRecord } from './program'

/**
 * The recipient's side of an offer, as pure rules: link tokens, eligibility, the TEST inbox's magic
 * addresses, and what a recipient may see. Every door (the recipient's page, the mail worker, the
 * TEST-only move call, the console's types) uses these.
 */

/** A new link token (shown once, in the e-mail) and the hash that is all the service keeps. */
export const newOfferToken = () => {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashOfferToken(token) }
}

export const hashOfferToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** A token this service could have made (43 base64url characters); anything else is unknown. */
export const isOfferTokenShape = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value)

/** The most link tokens a grant keeps valid at once (first send, resends, new links). */
export const MAX_OFFER_TOKENS = 5

export const isOpen = (state: GrantState) => OPEN_STATES.includes(state)

/**
 * What identifying decides: eligible, or the first rule failed (age before country). Only the
 * result and the country are kept; the date of birth is used here and dropped.
 */
export type EligibilityInput = { name: string; dateOfBirth?: string; country?: string }
export type EligibilityResult =
  | { eligible: true; age?: { atLeast: number; passed: true }; country?: string }
  | {
      eligible: false
      reason: Exclude<RejectionReason, 'declined'>
      age?: { atLeast: number; passed: boolean }
      country?: string
    }

/** Full years between an ISO date of birth (YYYY-MM-DD) and `now` (ms), in UTC. */
export const ageOn = (dateOfBirth: string, now: number) => {
  const [y, m, d] = dateOfBirth.split('-').map(Number) as [number, number, number]
  const today = new Date(now)
  let age = today.getUTCFullYear() - y
  const beforeBirthday =
    today.getUTCMonth() + 1 < m || (today.getUTCMonth() + 1 === m && today.getUTCDate() < d)
  if (beforeBirthday) age--
  return age
}

export const decideEligibility = (
  program: Pick<ProgramRecord, 'minAge' | 'countries'>,
  input: EligibilityInput,
  now: number,
): EligibilityResult => {
  const age =
    program.minAge === undefined || input.dateOfBirth === undefined
      ? undefined
      : { atLeast: program.minAge, passed: ageOn(input.dateOfBirth, now) >= program.minAge }
  const country = program.countries === undefined ? undefined : input.country?.toUpperCase()
  const kept = { ...(age ? { age } : {}), ...(country ? { country } : {}) }
  if (age !== undefined && !age.passed)
    return { eligible: false, reason: 'ineligible_age', ...kept }
  if (program.countries !== undefined && !program.countries.includes(country ?? '')) {
    return { eligible: false, reason: 'ineligible_country', ...kept }
  }
  return { eligible: true, ...(kept as { age?: { atLeast: number; passed: true } }) }
}

/** Which fields a program's rules need on the recipient's page. */
export const eligibilityFields = (program: Pick<ProgramRecord, 'minAge' | 'countries'>) => ({
  name: true as const,
  dateOfBirth: program.minAge !== undefined,
  country: program.countries !== undefined,
})

/**
 * TEST mode's magic addresses: the local part's prefix drives a TEST grant to an outcome when its
 * offer is delivered (to the TEST inbox), with no browser. LIVE grants ignore them.
 */
export const MAGIC_PREFIXES = {
  'accept+': 'accept',
  'decline+': 'decline',
  'ineligible+': 'ineligible',
  'bounce+': 'bounce',
  'complain+': 'complain',
  'expire+': 'expire',
} as const
export type MagicOutcome = (typeof MAGIC_PREFIXES)[keyof typeof MAGIC_PREFIXES]

export const magicOutcome = (email: string): MagicOutcome | undefined => {
  const local = email.toLowerCase()
  for (const [prefix, outcome] of Object.entries(MAGIC_PREFIXES)) {
    if (local.startsWith(prefix)) return outcome
  }
  return undefined
}

/** The states the TEST-only move call can put a TEST grant in. */
export const TEST_MOVE_TARGETS = ['offered', 'accepted', 'rejected', 'expired', 'canceled'] as const
export type TestMoveTarget = (typeof TEST_MOVE_TARGETS)[number]
