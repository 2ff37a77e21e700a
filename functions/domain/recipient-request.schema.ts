// zod/mini, as the other bodies (cold start matters on every function).
import * as z from 'zod/mini'
import { countryProblem, dateOfBirthProblem, nameProblem } from './recipient-fields'
import { bodyError, emailSchema, expected } from './request-fields.schema'

/**
 * The bodies of the recipient's public routes (`POST /recipient/...`): their shape and the rules
 * on what the recipient typed (recipient-fields.ts, which the page asks too). Whether a token is
 * known, a grant is this token's, or a field is one the program needs is the use case's
 * (core/grant-life.ts): a token of the wrong shape is answered as an unknown one, never as a 400,
 * so the answer tells nothing about tokens.
 */

/** The bodies are a few hundred bytes; anything near this is not one. */
export const RECIPIENT_BODY_MAX_BYTES = 4 * 1024

/** A string with a length cap (the token's and the grant id's shapes are the use case's). */
const opaque = (field: string, max: number) =>
  z
    .string({ error: expected(field, 'a string') })
    .check(
      z.minLength(1, { error: `${field} must not be empty`, abort: true }),
      z.maxLength(max, { error: `${field} must be at most ${max} characters` }),
    )

const token = opaque('token', 128)
const grantId = opaque('grantId', 64)

/** A rule of recipient-fields.ts as a zod check, with its wording after the field's name. */
const ruled = (field: string, problem: (value: string) => string | undefined) =>
  z.string({ error: expected(field, 'a string') }).check(
    z.refine((value) => problem(value) === undefined, {
      error: (issue) => `${field} ${problem(String(issue.input))}`,
    }),
  )

export const RecipientOfferBody = z.strictObject({ token }, { error: bodyError })

/** `now`: the clock "in the past" is measured against (the runtime's, so tests can move it). */
export const recipientIdentifyBody = (now: () => number) =>
  z.strictObject(
    {
      token,
      grantId,
      name: z.pipe(
        z.string({ error: expected('name', 'a string') }).check(z.trim()),
        ruled('name', nameProblem),
      ),
      dateOfBirth: z.optional(ruled('dateOfBirth', (value) => dateOfBirthProblem(value, now()))),
      country: z.optional(
        z.pipe(
          z.string({ error: expected('country', 'a string') }).check(z.trim(), z.toUpperCase()),
          ruled('country', countryProblem),
        ),
      ),
    },
    { error: bodyError },
  )

export const RecipientAcceptBody = z.strictObject(
  {
    token,
    grantId,
    // 0: the program has no Terms (core/grant-life.ts compares it with the program's version).
    termsVersion: z
      .int({ error: expected('termsVersion', 'a whole number') })
      .check(
        z.nonnegative({ error: 'termsVersion must be 0 or more' }),
        z.maximum(1_000_000, { error: 'termsVersion must be at most 1000000' }),
      ),
  },
  { error: bodyError },
)

export const RecipientDeclineBody = z.strictObject({ token, grantId }, { error: bodyError })

/** The same steps from the holdings page: the session in `Authorization`, no token in the body. */
export const holdingsIdentifyBody = (now: () => number) =>
  z.omit(recipientIdentifyBody(now), { token: true })
export const HoldingsAcceptBody = z.omit(RecipientAcceptBody, { token: true })
export const HoldingsDeclineBody = z.omit(RecipientDeclineBody, { token: true })

export const RecipientLinksBody = z.strictObject(
  {
    email: emailSchema('email'),
  },
  { error: bodyError },
)

/** What `POST /recipient/holdings/link` always answers (202), whether or not the address holds grants. */
export const HOLDINGS_LINK_ANSWER = { object: 'holdings_link_request' } as const

/** What `POST /recipient/links` always answers (202), whether or not the address holds offers. */
export const LINKS_ANSWER = {
  message: 'If an offer for this address is open, a new link is on its way.',
} as const
