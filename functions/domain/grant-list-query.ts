import { type FieldError, ValidationFailed } from './errors'
import { decodeGrantCursor, type GrantCursor } from './grant'
import { GRANT_STATES, type GrantState } from './grant-lifecycle'
import { EmailSchema } from './grant-request.schema'

/** Page sizes of a grant listing. */
export const GRANT_PAGE = { default: 25, max: 100 } as const

export type GrantListQuery = {
  limit: number
  after?: GrantCursor
  recipientEmail?: string
  status?: GrantState
}

const LIST_PARAMETERS = ['recipient', 'cursor', 'limit'] as const

/**
 * `?recipient=&cursor=&limit=` of a program's grant listing (the grant API's and the management
 * API's), checked before any read: a parameter the route does not know is refused and named (a
 * typo such as `?recipent=` never passes silently as "no filter"); `limit` is a whole number from 1
 * to `page.max` (default `page.default`); `cursor` must be one a previous page gave (opaque,
 * checked); `recipient` is normalised like `recipient.email` (trimmed, lower-cased, a valid
 * address). An empty value is the same as none. With `filters.status` (the integrators' listing),
 * `status` is one of GRANT_STATES: only grants in that state.
 */
export const parseGrantListQuery = (
  query: Record<string, string | undefined> | undefined,
  page: { default: number; max: number } = GRANT_PAGE,
  extra: readonly string[] = [],
  filters: { status?: boolean } = {},
): GrantListQuery => {
  const given = query ?? {}
  const known = [...LIST_PARAMETERS, ...(filters.status ? ['status'] : []), ...extra]
  const errors: FieldError[] = Object.keys(given)
    .filter((name) => !known.includes(name))
    .map((name) => ({ field: name, message: `unknown query parameter ${JSON.stringify(name)}` }))
  const value = (name: string) => {
    const raw = given[name]
    return raw === undefined || raw === '' ? undefined : raw
  }

  let limit: number = page.default
  const rawLimit = value('limit')
  if (rawLimit !== undefined) {
    limit = /^\d{1,6}$/.test(rawLimit) ? Number(rawLimit) : 0
    if (limit < 1 || limit > page.max) {
      errors.push({ field: 'limit', message: `limit must be a whole number from 1 to ${page.max}` })
    }
  }
  let after: GrantCursor | undefined
  const rawCursor = value('cursor')
  if (rawCursor !== undefined) {
    after = decodeGrantCursor(rawCursor)
    if (after === undefined) {
      errors.push({ field: 'cursor', message: 'cursor must be the nextCursor of a previous page' })
    }
  }
  let recipientEmail: string | undefined
  const rawRecipient = value('recipient')
  if (rawRecipient !== undefined) {
    const parsed = EmailSchema.safeParse(rawRecipient)
    if (parsed.success) recipientEmail = parsed.data
    else errors.push({ field: 'recipient', message: 'recipient must be a valid e-mail address' })
  }
  let status: GrantState | undefined
  const rawStatus = filters.status ? value('status') : undefined
  if (rawStatus !== undefined) {
    status = GRANT_STATES.find((state) => state === rawStatus)
    if (status === undefined) {
      errors.push({ field: 'status', message: `status must be one of ${GRANT_STATES.join(', ')}` })
    }
  }
  if (errors.length > 0) throw new ValidationFailed(errors)
  return {
    limit,
    ...(after === undefined ? {} : { after }),
    ...(recipientEmail === undefined ? {} : { recipientEmail }),
    ...(status === undefined ? {} : { status }),
  }
}
