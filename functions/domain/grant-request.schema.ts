// zod/mini: the same validation as classic zod at a fraction of the bundle (cold start matters).
import * as z from 'zod/mini'
import { InvalidIdempotencyKey } from './errors'
import { IDEMPOTENCY_KEY_CHARACTERS, LIMITS } from './grant-limits'
import { TEXT_RULES, textProblem } from './text-rules'

// The limits live without zod (grant-limits.ts), the rules every free-text field shares in one
// module; both re-exported for the readers that knew them here.
export { LIMITS } from './grant-limits'
export { isBlank } from './text-rules'

// "is required" for an absent field, "must be a ..." for a present one of the wrong type.
const expected = (field: string, what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${field} is required` : `${field} must be ${what}`

// Only for a wrong type: other issues of an object (unknown keys) keep their own messages.
const typeError =
  (message: (issue: { input?: unknown }) => string) => (issue: { code: string; input?: unknown }) =>
    issue.code === 'invalid_type' ? message(issue) : undefined

const text = (field: string, max: number, { allowEmpty = false } = {}) =>
  z.string({ error: expected(field, 'a string') }).check(
    z.minLength(allowEmpty ? 0 : 1, { error: `${field} must not be blank`, abort: true }),
    z.maxLength(max, { error: `${field} must be at most ${max} characters` }),
    // Blank, control and bidirectional characters, lone surrogates: the shared text rules.
    z.refine((value) => (allowEmpty && value === '') || textProblem(value) === undefined, {
      error: (issue) => `${field} ${TEXT_RULES[textProblem(String(issue.input)) ?? 'blank']}`,
    }),
  )

export const EmailSchema = z.pipe(
  z.string({ error: expected('recipient.email', 'a string') }).check(
    z.trim(),
    z.toLowerCase(),
    z.maxLength(LIMITS.maxEmailLength, {
      error: `recipient.email must be at most ${LIMITS.maxEmailLength} characters`,
    }),
  ),
  z.email({ error: 'recipient.email must be a valid e-mail address' }),
)

export const GrantRequestSchema = z.strictObject(
  {
    recipient: z.strictObject(
      {
        email: EmailSchema,
        // "" and null mean "no name": integrations written for the reference product send them
        // (a default argument, Python's None). Any other blank or non-string is refused.
        name: z.optional(
          z.nullable(text('recipient.name', LIMITS.maxNameLength, { allowEmpty: true })),
        ),
      },
      { error: typeError(expected('recipient', 'an object with an email')) },
    ),
    reason: text('reason', LIMITS.maxReasonLength),
    amount: z
      .int({
        error: (issue) =>
          issue.input === undefined
            ? 'amount is required'
            : typeof issue.input === 'number' && Number.isFinite(issue.input)
              ? 'amount must be a whole number'
              : 'amount must be a JSON number',
      })
      .check(
        z.positive({ error: 'amount must be greater than zero' }),
        z.maximum(LIMITS.maxAmount, { error: `amount must be at most ${LIMITS.maxAmount}` }),
      ),
  },
  { error: typeError(() => 'The body must be a JSON object') },
)

export type GrantRequest = z.output<typeof GrantRequestSchema>

// Printable ASCII, as Stripe and the IETF Idempotency-Key draft allow.
export const IdempotencyKeySchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(LIMITS.maxIdempotencyKeyLength),
    z.regex(IDEMPOTENCY_KEY_CHARACTERS),
  )

/**
 * The Idempotency-Key rule, for the grant API, the management API's sends and batch commits
 * alike: absent is allowed (`undefined` back), present must be printable ASCII of the right length.
 */
export const checkIdempotencyKey = (key: string | undefined): string | undefined => {
  if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success) {
    throw new InvalidIdempotencyKey(
      `Idempotency-Key must be 1 to ${LIMITS.maxIdempotencyKeyLength} printable ASCII characters.`,
    )
  }
  return key
}
