// zod/mini, as the grant API: the same validation at a fraction of the bundle.
import * as z from 'zod/mini'
import { bodyError, expected } from '../domain/request-fields.schema'

/**
 * The JSON bodies of the program and key routes: their shape (an object, the types of its fields,
 * no field it does not know). The rules on the values (a mode is TEST or LIVE, a pool a whole
 * number in range, a duration like `90d`) are the admin use cases' (functions/admin), which the
 * CLI runs too, so no rule is written twice.
 */

const text = (field: string) => z.string({ error: expected(field, 'a string') })

/** `POST /manage/issuers/{issuerId}/programs`. `pool` absent or null: no limit. */
export const CreateProgramBody = z.strictObject(
  {
    name: text('name'),
    mode: text('mode'),
    pool: z.optional(z.nullable(z.number({ error: expected('pool', 'a number') }))),
  },
  { error: bodyError },
)

/** `POST /manage/issuers/{issuerId}/keys`. `expiresIn` like `90d`; absent or null: no expiry. */
export const CreateKeyBody = z.strictObject(
  {
    mode: text('mode'),
    expiresIn: z.optional(z.nullable(text('expiresIn'))),
  },
  { error: bodyError },
)

/** `POST /manage/issuers/{issuerId}/keys/{keyId}/roll`. `grace` like `24h` (the default), `0`. */
export const RollKeyBody = z.strictObject(
  { grace: z.optional(z.nullable(text('grace'))) },
  { error: bodyError },
)

/**
 * `PATCH /manage/issuers/{issuerId}/keys/{keyId}`: `rateLimit`, requests a second, or null for the
 * mode's default. Required: a PATCH that changes nothing is a mistake.
 */
export const KeyChangeBody = z.strictObject(
  { rateLimit: z.nullable(z.number({ error: expected('rateLimit', 'a number or null') })) },
  { error: bodyError },
)
