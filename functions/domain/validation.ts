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

/** What a zod schema's safeParse answers, as far as the readers below need it. */
type SafeParser<T> = {
  safeParse: (
    input: unknown,
  ) =>
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: PropertyKey[] }[] } }
}

/**
 * A message body (a queue's) read with its schema: the message, or why not: `issues` absent when
 * the body is not JSON at all, else the schema's.
 */
export const readJsonWith = <T>(
  schema: SafeParser<T>,
  body: string,
): { ok: true; value: T } | { ok: false; issues?: readonly { path: PropertyKey[] }[] } => {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return { ok: false }
  }
  const parsed = schema.safeParse(value)
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, issues: parsed.error.issues }
}
