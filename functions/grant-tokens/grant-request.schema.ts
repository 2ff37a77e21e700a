import * as z from 'zod'

/** Documented limits of the grant contract (README "API contract"). */
export const LIMITS = {
  maxAmount: 1_000_000,
  maxEmailLength: 254,
  maxReasonLength: 500,
  maxNameLength: 200,
  maxBodyBytes: 16 * 1024,
  maxIdempotencyKeyLength: 255,
} as const

// Control characters (C0, DEL, C1) have no place in a reason or a name and break logs and CSVs.
const CONTROL_CHARACTERS = /\p{Cc}/u

// "is required" for an absent field, "must be a ..." for a present one of the wrong type.
const expected = (field: string, what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `${field} is required` : `${field} must be ${what}`

const text = (field: string, max: number) =>
  z
    .string({ error: expected(field, 'a string') })
    .max(max, { error: `${field} must be at most ${max} characters` })
    .refine((value) => value.trim().length > 0, { error: `${field} must not be blank` })
    .refine((value) => !CONTROL_CHARACTERS.test(value), {
      error: `${field} must not contain control characters`,
    })
    // A lone UTF-16 surrogate cannot be stored as UTF-8 without being silently replaced.
    .refine((value) => value.isWellFormed(), { error: `${field} must be valid Unicode` })

// Only for a wrong type: other issues of an object (unknown keys) keep their own messages.
const typeError =
  (message: (issue: { input?: unknown }) => string) => (issue: { code: string; input?: unknown }) =>
    issue.code === 'invalid_type' ? message(issue) : undefined

export const EmailSchema = z
  .string({ error: expected('recipient.email', 'a string') })
  .trim()
  .toLowerCase()
  .max(LIMITS.maxEmailLength, {
    error: `recipient.email must be at most ${LIMITS.maxEmailLength} characters`,
  })
  .pipe(z.email({ error: 'recipient.email must be a valid e-mail address' }))

export const GrantRequestSchema = z.strictObject(
  {
    recipient: z.strictObject(
      {
        email: EmailSchema,
        name: text('recipient.name', LIMITS.maxNameLength).optional(),
      },
      { error: typeError(expected('recipient', 'an object with an email')) },
    ),
    reason: text('reason', LIMITS.maxReasonLength),
    amount: z
      .number({ error: expected('amount', 'a JSON number') })
      .int({ error: 'amount must be a whole number' })
      .positive({ error: 'amount must be greater than zero' })
      .max(LIMITS.maxAmount, { error: `amount must be at most ${LIMITS.maxAmount}` }),
  },
  { error: typeError(() => 'The body must be a JSON object') },
)

export type GrantRequest = z.output<typeof GrantRequestSchema>

// Printable ASCII, as Stripe and the IETF Idempotency-Key draft allow.
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(LIMITS.maxIdempotencyKeyLength)
  .regex(/^[\x20-\x7e]+$/)
