import type { ProgramRecord, ProgramTerms } from './program'
import { isCountryCode } from './recipient-fields'
import { BIDI_CONTROLS, isBlank } from './text-rules'

/**
 * The rules on a program's offer settings (what its recipients see and must meet), written once
 * and without dependencies: the management route's use case (core/admin.ts, setOfferSettings)
 * and the console's form both ask these, so the message next to a field is the API's.
 */

export const OFFER_SETTINGS_LIMITS = {
  offerDays: { min: 1, max: 365 },
  minAge: { min: 13, max: 120 },
  descriptionMax: 2_000,
  termsTextMax: 20_000,
  termsUrlMax: 2_000,
  countriesMax: 249,
} as const

/**
 * What a PATCH may set; `null` removes a rule (any age, any country, no description). Terms are
 * replaced, never removed: their version only ever grows, so an acceptance always names the
 * terms it accepted.
 */
export type OfferSettingsInput = { [F in (typeof OFFER_SETTINGS_FIELDS)[number]]?: unknown }

/** The fields of a PATCH of the offer settings (the route's body takes these and no other). */
export const OFFER_SETTINGS_FIELDS = [
  'offerDays',
  'minAge',
  'countries',
  'description',
  'terms',
  'poolLowThreshold',
] as const

/** The settings as checked: `null` means "remove", absent means "leave as it is". */
export type OfferSettingsChange = {
  offerDays?: number
  minAge?: number | null
  countries?: string[] | null
  description?: string | null
  terms?: { text: string } | { url: string }
  /** `program.pool_low`'s threshold (shares left); null: no such event. */
  poolLowThreshold?: number | null
}

// Line breaks and tabs are part of a description or terms; other control characters are not.
const hasOtherControls = (value: string) => /\p{Cc}/u.test(value.replace(/[\n\r\t]/g, ''))
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u

/** A long text's problem (a description, terms), as the rest of the sentence, or undefined. */
export const longTextProblem = (value: string, max: number): string | undefined => {
  if (isBlank(value)) return 'must not be blank'
  if ([...value].length > max) return `must be at most ${max.toLocaleString('en')} characters`
  if (hasOtherControls(value)) return 'must not contain control characters (line breaks are fine)'
  if (BIDI_CONTROLS.test(value))
    return 'must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)'
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode'
  return undefined
}

const wholeIn = (value: unknown, { min, max }: { min: number; max: number }) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max

/** The terms link's problem, or undefined: an https URL with a host, no credentials. */
export const termsUrlProblem = (value: string): string | undefined => {
  const rule = 'must be an https:// link (at most 2,000 characters)'
  if (value.length === 0 || value.length > OFFER_SETTINGS_LIMITS.termsUrlMax) return rule
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return rule
  }
  if (url.protocol !== 'https:' || url.hostname === '' || /\s/.test(value)) return rule
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password'
  return undefined
}

/**
 * Checks a PATCH's values: the change (trimmed, countries upper-cased, sorted, without
 * duplicates), or the problems by field (`terms.text`, `countries[2]`), every one at once.
 */
export const checkOfferSettings = (
  input: OfferSettingsInput,
): { change: OfferSettingsChange } | { problems: { field: string; rule: string }[] } => {
  const problems: { field: string; rule: string }[] = []
  const change: OfferSettingsChange = {}
  const L = OFFER_SETTINGS_LIMITS

  if (input.offerDays !== undefined) {
    if (wholeIn(input.offerDays, L.offerDays)) change.offerDays = input.offerDays as number
    else problems.push({ field: 'offerDays', rule: 'must be a whole number of days from 1 to 365' })
  }
  if (input.minAge !== undefined) {
    if (input.minAge === null) change.minAge = null
    else if (wholeIn(input.minAge, L.minAge)) change.minAge = input.minAge as number
    else
      problems.push({
        field: 'minAge',
        rule: 'must be a whole number of years from 13 to 120, or null for no age rule',
      })
  }
  if (input.countries !== undefined) {
    if (input.countries === null) change.countries = null
    else if (!Array.isArray(input.countries) || input.countries.length === 0) {
      problems.push({
        field: 'countries',
        rule: 'must be a list of ISO 3166-1 alpha-2 country codes (at least one), or null for any country',
      })
    } else if (input.countries.length > L.countriesMax) {
      problems.push({ field: 'countries', rule: `must list at most ${L.countriesMax} countries` })
    } else {
      const codes = new Set<string>()
      input.countries.forEach((code, i) => {
        const upper = typeof code === 'string' ? code.trim().toUpperCase() : ''
        if (isCountryCode(upper)) codes.add(upper)
        else
          problems.push({
            field: `countries[${i}]`,
            rule: `must be an ISO 3166-1 alpha-2 country code (such as DE or US), got ${JSON.stringify(code)}`,
          })
      })
      change.countries = [...codes].sort()
    }
  }
  if (input.description !== undefined) {
    if (input.description === null || input.description === '') change.description = null
    else if (typeof input.description !== 'string')
      problems.push({ field: 'description', rule: 'must be a string, or null for none' })
    else {
      const text = input.description.trim()
      const problem = longTextProblem(text, L.descriptionMax)
      if (problem) problems.push({ field: 'description', rule: problem })
      else change.description = text
    }
  }
  if (input.terms !== undefined) {
    const terms = input.terms as { text?: unknown; url?: unknown } | null
    if (terms === null || typeof terms !== 'object' || Array.isArray(terms)) {
      problems.push({
        field: 'terms',
        rule: 'must be { "text": ... } or { "url": ... } (terms are replaced, never removed)',
      })
    } else {
      const keys = Object.keys(terms)
      if (keys.some((k) => k !== 'text' && k !== 'url') || keys.length !== 1) {
        problems.push({
          field: 'terms',
          rule: 'must have exactly one of text (the terms themselves) or url (a link to them)',
        })
      } else if (keys[0] === 'text') {
        const text = typeof terms.text === 'string' ? terms.text.trim() : undefined
        const problem =
          text === undefined ? 'must be a string' : longTextProblem(text, L.termsTextMax)
        if (problem) problems.push({ field: 'terms.text', rule: problem })
        else change.terms = { text: text as string }
      } else {
        const url = typeof terms.url === 'string' ? terms.url.trim() : ''
        const problem = termsUrlProblem(url)
        if (problem) problems.push({ field: 'terms.url', rule: problem })
        else change.terms = { url }
      }
    }
  }
  if (input.poolLowThreshold !== undefined) {
    const value = input.poolLowThreshold
    if (value === null) change.poolLowThreshold = null
    else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 1)
      change.poolLowThreshold = value
    else
      problems.push({
        field: 'poolLowThreshold',
        rule: 'must be a whole number of shares, 1 or more, or null for no pool-low event',
      })
  }
  if (problems.length === 0 && Object.keys(change).length === 0) {
    problems.push({
      field: 'body',
      rule: 'must set at least one of offerDays, minAge, countries, description, terms, poolLowThreshold',
    })
  }
  return problems.length > 0 ? { problems } : { change }
}

/**
 * The program's settings after `change`: a change of the terms' text or link makes a new
 * version (1, 2, ...); the same terms again keep theirs. Returns the fields to set and remove.
 */
export const applyOfferSettings = (
  program: Pick<
    ProgramRecord,
    'offerDays' | 'minAge' | 'countries' | 'description' | 'terms' | 'poolLowThreshold'
  >,
  change: OfferSettingsChange,
): {
  set: Partial<
    Pick<ProgramRecord, 'offerDays' | 'minAge' | 'countries' | 'description' | 'poolLowThreshold'>
  > & {
    terms?: ProgramTerms
  }
  remove: ('minAge' | 'countries' | 'description' | 'poolLowThreshold')[]
  termsChanged: boolean
} => {
  const set: ReturnType<typeof applyOfferSettings>['set'] = {}
  const remove: ReturnType<typeof applyOfferSettings>['remove'] = []
  if (change.offerDays !== undefined) set.offerDays = change.offerDays
  for (const field of ['minAge', 'countries', 'description', 'poolLowThreshold'] as const) {
    const value = change[field]
    if (value === undefined) continue
    if (value === null) {
      if (program[field] !== undefined) remove.push(field)
    } else (set as Record<string, unknown>)[field] = value
  }
  let termsChanged = false
  if (change.terms !== undefined) {
    const current = program.terms
    const same =
      current !== undefined &&
      current.text === ('text' in change.terms ? change.terms.text : undefined) &&
      current.url === ('url' in change.terms ? change.terms.url : undefined)
    if (!same) {
      set.terms = { version: (current?.version ?? 0) + 1, ...change.terms }
      termsChanged = true
    }
  }
  return { set, remove, termsChanged }
}
