// zod/mini, as the grant API: the same validation at a fraction of the bundle.
import * as z from 'zod/mini'
import { bodyError } from '../domain/request-fields.schema'

/** The shape checks every management body shares (manage-bodies.ts, the offer settings). */

/**
 * A body of these fields, each optional and of any type: only its shape (an object, no field it
 * does not know) is checked here; the values' rules are the use case's, which names each field.
 */
export const bodyOfFields = <const K extends string>(...fields: K[]) =>
  z.strictObject(
    Object.fromEntries(fields.map((field) => [field, z.optional(z.unknown())])) as Record<
      K,
      z.ZodMiniOptional<z.ZodMiniUnknown>
    >,
    { error: bodyError },
  )
