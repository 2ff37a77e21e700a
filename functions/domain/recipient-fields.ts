import { LIMITS } from './grant-limits'
import { TEXT_RULES, textProblem } from './text-rules'

/**
 * The rules on what a recipient types on their page (name, date of birth, country), written once
 * and without dependencies: the public routes' bodies (recipient-request.schema.ts) and the page
 * (console/src/offer) both ask these, so the page's message next to a field is the API's.
 */

export const RECIPIENT_NAME_MAX = LIMITS.maxNameLength

/**
 * The ISO 3166-1 alpha-2 codes officially assigned (249). Not read from Intl: engines also name
 * reserved and withdrawn codes (EU, UK, XK, SU, ZZ ...), and differ by ICU version.
 */
export const ISO_COUNTRIES = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS ' +
  'BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE ' +
  'EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM ' +
  'HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC ' +
  'LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA ' +
  'NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
  'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO ' +
  'TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ')

const COUNTRY_SET = new Set(ISO_COUNTRIES)

export const isCountryCode = (value: string) => COUNTRY_SET.has(value)

/** The oldest date of birth taken: nobody alive was born before it. */
export const OLDEST_BIRTH_DATE = '1900-01-01'

/** `name`'s problem, as the rest of the sentence after "name", or undefined. */
export const nameProblem = (value: string): string | undefined => {
  if (value.length === 0) return TEXT_RULES.blank
  if (value.length > RECIPIENT_NAME_MAX) return `must be at most ${RECIPIENT_NAME_MAX} characters`
  const problem = textProblem(value)
  return problem === undefined ? undefined : TEXT_RULES[problem]
}

/**
 * `dateOfBirth`'s problem, or undefined: a real calendar date written YYYY-MM-DD, before today
 * (UTC, by `now`) and not before OLDEST_BIRTH_DATE.
 */
export const dateOfBirthProblem = (value: string, now: number): string | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!match) return 'must be a date written YYYY-MM-DD'
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  // 2023-02-30 rolls over to March: not a real date.
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  )
    return 'must be a real date'
  const today = new Date(now).toISOString().slice(0, 10)
  if (value >= today) return 'must be in the past'
  if (value < OLDEST_BIRTH_DATE) return `must not be before ${OLDEST_BIRTH_DATE}`
  return undefined
}

/** `country`'s problem (after upper-casing), or undefined. */
export const countryProblem = (value: string): string | undefined =>
  isCountryCode(value.toUpperCase())
    ? undefined
    : 'must be a country code of ISO 3166-1 alpha-2 (two letters, such as DE or US)'

/** The same rule as the API's (`z.email`), loosely: the page's hint before it sends. */
export const looksLikeEmail = (value: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim())
