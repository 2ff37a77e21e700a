import type { $ZodError } from 'zod/v4/core'

/** A zod check's failures as the API's field errors (`errors` of a 400 `validation_failed`). */

const fieldName = (path: PropertyKey[]) => (path.length > 0 ? path.map(String).join('.') : '(body)')

/** One entry per failing field; an unknown key is named as a field of its own. */
export const zodIssuesToFieldErrors = (error: $ZodError) =>
  error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({
          field: fieldName([...issue.path, key]),
          message: `unknown field ${JSON.stringify(key)}`,
        }))
      : [{ field: fieldName(issue.path), message: issue.message }],
  )
