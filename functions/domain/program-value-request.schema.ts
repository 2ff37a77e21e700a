// zod/mini, as every body (cold start matters on every function).
import * as z from 'zod/mini'
import { isCalendarDate, isCurrency, MAX_METHOD_LENGTH } from './program-value'
import { bodyError, expected } from './request-fields.schema'
import { isDecimalAmount, MAX_VALUE_FRACTION_DIGITS, MAX_VALUE_INTEGER_DIGITS } from './share-value'
import { TEXT_RULES, textProblem } from './text-rules'

const AMOUNT_RULE = `amount must be a decimal string such as "12.50" (no sign or exponent, up to ${MAX_VALUE_INTEGER_DIGITS} digits before the point and ${MAX_VALUE_FRACTION_DIGITS} after)`

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/values`: the amount as a decimal string
 * (a JSON number would already be a binary float), an ISO 4217 currency, the "as of" date and an
 * optional note on the method. Unknown fields are refused and named. That the date is not in the
 * future is the use case's check (it needs the clock).
 */
export const SetProgramValueSchema = z.strictObject(
  {
    amount: z
      .string({ error: expected('amount', 'a string such as "12.50"') })
      .check(z.refine(isDecimalAmount, { error: AMOUNT_RULE })),
    currency: z.string({ error: expected('currency', 'a string') }).check(
      z.refine(isCurrency, {
        error: 'currency must be an ISO 4217 code in upper case, such as EUR or USD',
      }),
    ),
    asOf: z
      .string({ error: expected('asOf', 'a string') })
      .check(z.refine(isCalendarDate, { error: 'asOf must be a date written YYYY-MM-DD' })),
    method: z.optional(
      z.nullable(
        z.string({ error: expected('method', 'a string, or null for none') }).check(
          z.trim(),
          z.maxLength(MAX_METHOD_LENGTH, {
            error: `method must be at most ${MAX_METHOD_LENGTH} characters`,
          }),
          // Empty is none; otherwise the rules every free text shares.
          z.refine((value) => value === '' || textProblem(value) === undefined, {
            error: (issue) => `method ${TEXT_RULES[textProblem(String(issue.input)) ?? 'blank']}`,
          }),
        ),
      ),
    ),
  },
  { error: bodyError },
)

export type SetProgramValueRequest = z.output<typeof SetProgramValueSchema>
