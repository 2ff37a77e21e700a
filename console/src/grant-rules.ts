import { LIMITS } from '../../functions/domain/grant-limits'
import { looksLikeEmail } from '../../functions/domain/recipient-fields'
import { textProblem } from '../../functions/domain/text-rules'
import { digitsOf, formatNumber } from './ui-format'

/**
 * The grant API's rules (functions/domain: grant-limits.ts, text-rules.ts, the e-mail rule of
 * recipient-fields.ts), said to the person and checked before sending: one grant, or each row of
 * a CSV sent to many.
 */
export const GRANT_RULES = {
  email: `A valid address, at most ${LIMITS.maxEmailLength} characters. Stored lower-case.`,
  name: `Optional. At most ${LIMITS.maxNameLength} characters.`,
  reason: `1 to ${LIMITS.maxReasonLength} characters; no line breaks or tabs.`,
  amount: `A whole number of shares from 1 to ${formatNumber(LIMITS.maxAmount)}.`,
}

/** What a form says of an address that is not one. */
export const EMAIL_PROBLEM = `Enter a valid e-mail address (at most ${LIMITS.maxEmailLength} characters).`

const NO_BIDI = 'No bidirectional control characters (U+202A to U+202E, U+2066 to U+2069).'
const NOT_UNICODE = 'Only whole characters: this text holds half of one (a lone surrogate).'
// What the service's shared text rules (functions/domain/text-rules.ts) refuse, said per field.
const NAME_SAYS = {
  blank: 'Leave the name empty, or give one without control characters.',
  control: 'Leave the name empty, or give one without control characters.',
  bidi: NO_BIDI,
  unicode: NOT_UNICODE,
}
const REASON_SAYS = {
  blank: 'Give a reason.',
  control: 'No line breaks, tabs or control characters.',
  bidi: NO_BIDI,
  unicode: NOT_UNICODE,
}

export type GrantForm = { email: string; name: string; reason: string; amount: string }

/** The form's problems by field, in the service's rules; empty when it may be sent. */
export const checkGrant = (form: GrantForm) => {
  const problems: Record<string, string> = {}
  const email = form.email.trim()
  if (!looksLikeEmail(email) || email.length > LIMITS.maxEmailLength) problems.email = EMAIL_PROBLEM
  const nameProblem = form.name === '' ? undefined : textProblem(form.name)
  if (nameProblem) problems.name = NAME_SAYS[nameProblem]
  else if ([...form.name].length > LIMITS.maxNameLength)
    problems.name = `At most ${LIMITS.maxNameLength} characters.`
  const reasonProblem = textProblem(form.reason)
  if (reasonProblem) problems.reason = REASON_SAYS[reasonProblem]
  else if ([...form.reason].length > LIMITS.maxReasonLength)
    problems.reason = `At most ${LIMITS.maxReasonLength} characters.`
  const amount = digitsOf(form.amount)
  if (!/^\d+$/.test(amount) || Number(amount) < 1 || Number(amount) > LIMITS.maxAmount) {
    problems.amount = `A whole number from 1 to ${formatNumber(LIMITS.maxAmount)}.`
  }
  return problems
}
