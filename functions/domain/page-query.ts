import { type FieldError, ValidationFailed } from './errors'

/** A listing's page sizes: `limit` when none is asked for, and the most one may ask for. */
export type PageSize = { default: number; max: number }

export type QueryParameters = Record<string, string | undefined>

/**
 * The query string's parameters a route does not know, each refused and named as an unknown body
 * field is: a typo such as `?mdoe=TEST` never passes silently as "no filter".
 */
export const unknownParameters = (
  query: QueryParameters | undefined,
  known: readonly string[],
): FieldError[] =>
  Object.keys(query ?? {})
    .filter((name) => !known.includes(name))
    .map((name) => ({ field: name, message: `unknown query parameter ${JSON.stringify(name)}` }))

/** The query string when every parameter is one the route knows; else 400, each unknown named. */
export const knownParameters = (
  query: QueryParameters | undefined,
  known: readonly string[],
): QueryParameters => {
  const errors = unknownParameters(query, known)
  if (errors.length > 0) throw new ValidationFailed(errors)
  return query ?? {}
}

/**
 * `?cursor=&limit=` and a listing's filters, read before any read of the store: an unknown
 * parameter is refused and named; `limit` is a whole number from 1 to `page.max` (default
 * `page.default`); `cursor` is one a previous page gave (`decode` answers undefined to any other;
 * `next`: the name of the page's field that holds it, for the message).
 * An empty value is the same as none. `filters`: the route's other parameters, which it checks with
 * `value` and `refuse`; `done` then throws every problem at once (400), or answers the page.
 */
export const readPageQuery = <C>(
  query: QueryParameters | undefined,
  {
    page,
    decode,
    filters = [],
    next = 'nextCursor',
  }: {
    page: PageSize
    decode: (cursor: string) => C | undefined
    filters?: readonly string[]
    next?: string
  },
) => {
  const given = query ?? {}
  const errors = unknownParameters(given, ['cursor', 'limit', ...filters])
  const value = (name: string) => {
    const raw = given[name]
    return raw === undefined || raw === '' ? undefined : raw
  }
  let limit = page.default
  const rawLimit = value('limit')
  if (rawLimit !== undefined) {
    limit = /^\d{1,6}$/.test(rawLimit) ? Number(rawLimit) : 0
    if (limit < 1 || limit > page.max) {
      errors.push({ field: 'limit', message: `limit must be a whole number from 1 to ${page.max}` })
    }
  }
  const rawCursor = value('cursor')
  const cursor = rawCursor === undefined ? undefined : decode(rawCursor)
  if (rawCursor !== undefined && cursor === undefined) {
    errors.push({ field: 'cursor', message: `cursor must be the ${next} of a previous page` })
  }
  return {
    limit,
    cursor,
    value,
    refuse: (field: string, message: string) => {
      errors.push({ field, message })
    },
    /** Every problem found, as one 400; or the page asked for. */
    done: () => {
      if (errors.length > 0) throw new ValidationFailed(errors)
      return { limit, cursor }
    },
  }
}

/** A filter's value when it is one of `allowed` (none when absent or empty), else refused. */
export const oneOf = <T extends string>(
  read: {
    value: (name: string) => string | undefined
    refuse: (field: string, message: string) => void
  },
  name: string,
  allowed: readonly T[],
  message: string,
): T | undefined => {
  const raw = read.value(name)
  if (raw === undefined) return undefined
  const found = allowed.find((option) => option === raw)
  if (found === undefined) read.refuse(name, message)
  return found
}
