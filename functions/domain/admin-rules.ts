import { type FieldProblem, InvalidInput } from './admin-errors'
import { MODES, type Mode } from './api-key'
import { MAX_NAME_LENGTH, MAX_POOL } from './program'
import { TEXT_RULES, textProblem } from './text-rules'

/**
 * The rules on what issuers' people and the operator type in, written once for every door: the
 * CLI hands them its flags' strings, the management routes the values of a JSON body (whose
 * types zod has checked). A rule returns the value or throws the text of the rule it breaks,
 * without the field's name: the CLI says `--pool must be ...`, a route `pool must be ...`.
 */
type Rule<T> = (value: unknown) => T

class Broken extends Error {}
const broken = (rule: string): never => {
  throw new Broken(rule)
}
const got = (value: unknown) => `got ${JSON.stringify(value ?? '')}`

// A program's limits live with the program (program.ts, no dependencies: the console says them).
export { MAX_NAME_LENGTH, MAX_POOL }

export const modeRule: Rule<Mode> = (value) => {
  const mode = typeof value === 'string' ? value.toUpperCase() : undefined
  return MODES.includes(mode as Mode)
    ? (mode as Mode)
    : broken(`must be TEST or LIVE, ${got(value)}`)
}

/**
 * Trimmed; 1 to 100 characters, and the shared text rules (functions/domain/text-rules.ts): not
 * blank, no control or bidirectional control characters, well-formed Unicode.
 */
export const nameRule: Rule<string> = (value) => {
  const name = typeof value === 'string' ? value.trim() : ''
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
    broken(`must be 1 to ${MAX_NAME_LENGTH} characters without control characters`)
  }
  const problem = textProblem(name)
  if (problem === 'bidi') broken(TEXT_RULES.bidi)
  if (problem !== undefined) {
    broken(`must be 1 to ${MAX_NAME_LENGTH} characters without control characters`)
  }
  return name
}

/** A whole number from 1 to `max`: a JSON number, or (from the CLI) its decimal digits. */
export const wholeNumberRule =
  (max: number): Rule<number> =>
  (value) => {
    const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
    return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 && n <= max
      ? n
      : broken(`must be a whole number from 1 to ${max}, ${got(value)}`)
  }

/**
 * A key's rate limit (requests a second): a whole number from 1 to `max`; `beyond` says who may
 * set more, when someone may.
 */
export const rateLimitRule =
  (max: number, beyond?: string): Rule<number> =>
  (value) => {
    try {
      return wholeNumberRule(max)(value)
    } catch (error) {
      if (beyond === undefined || !(error instanceof Broken)) throw error
      return broken(`${error.message}; ${beyond}`)
    }
  }

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const
export const MAX_DURATION_MS = 3650 * UNIT_MS.d

/**
 * `90d`, `24h`, `30m`, `45s` (or `0` for none where `zero` allows it); at most ten years. Returns
 * milliseconds.
 */
export const durationRule =
  ({ zero }: { zero: boolean }): Rule<number> =>
  (value) => {
    const match = typeof value === 'string' ? /^(\d{1,6})([smhd])?$/.exec(value.trim()) : null
    const amount = Number(match?.[1])
    const unit = match?.[2] as keyof typeof UNIT_MS | undefined
    const ms = unit === undefined ? 0 : amount * UNIT_MS[unit]
    if (
      !match ||
      (unit === undefined && amount !== 0) ||
      (ms === 0 && !zero) ||
      ms > MAX_DURATION_MS
    ) {
      broken(
        `must be ${zero ? '0 (none) or ' : ''}a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, ${got(value)}`,
      )
    }
    return ms
  }

/**
 * Checks fields one after the other and gathers what breaks, so one answer names every wrong
 * field. `check` returns the value (or undefined when it broke); `done` throws InvalidInput.
 */
export const fields = () => {
  const problems: FieldProblem[] = []
  return {
    check<T>(field: string, value: unknown, rule: Rule<T>): T {
      try {
        return rule(value)
      } catch (error) {
        if (!(error instanceof Broken)) throw error
        problems.push({ field, rule: error.message })
        return undefined as T
      }
    },
    /** Reports a problem found outside a rule (a cursor that does not decode). */
    add(field: string, rule: string) {
      problems.push({ field, rule })
    },
    done() {
      if (problems.length > 0) throw new InvalidInput(problems)
    },
  }
}

/** One field on its own: its value, or InvalidInput naming it. */
export const one = <T>(field: string, value: unknown, rule: Rule<T>): T => {
  const input = fields()
  const result = input.check(field, value, rule)
  input.done()
  return result
}
