// zod/mini, as every body (cold start matters on every function).
import * as z from 'zod/mini'
import { LIMITS } from './grant-limits'

/**
 * The pieces the request bodies' schemas share (grant, member, recipient), so a field answers the
 * same message whichever body it is in.
 */

/** "is required" for an absent field, "must be a ..." for a present one of the wrong type. */
export const expected = (field: string, what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${field} is required` : `${field} must be ${what}`

/** A body that is not an object; other issues of an object (unknown keys) keep their messages. */
export const bodyError = (issue: { code: string }) =>
  issue.code === 'invalid_type' ? 'The body must be a JSON object' : undefined

/** An e-mail address, trimmed and lower-cased before anything else; `field` names it in messages. */
export const emailSchema = (field: string) =>
  z.pipe(
    z.string({ error: expected(field, 'a string') }).check(
      z.trim(),
      z.toLowerCase(),
      z.maxLength(LIMITS.maxEmailLength, {
        error: `${field} must be at most ${LIMITS.maxEmailLength} characters`,
      }),
    ),
    z.email({ error: `${field} must be a valid e-mail address` }),
  )
