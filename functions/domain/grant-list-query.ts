import { decodeGrantCursor, type GrantCursor } from './grant'
import { GRANT_STATES, type GrantState } from './grant-lifecycle'
import { EmailSchema } from './grant-request.schema'
import { oneOf, type PageSize, readPageQuery } from './page-query'

/** Page sizes of a grant listing. */
export const GRANT_PAGE = { default: 25, max: 100 } as const

export type GrantListQuery = {
  limit: number
  after?: GrantCursor
  recipientEmail?: string
  status?: GrantState
}

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
  page: PageSize = GRANT_PAGE,
  extra: readonly string[] = [],
  filters: { status?: boolean } = {},
): GrantListQuery => {
  const read = readPageQuery(query, {
    page,
    decode: decodeGrantCursor,
    filters: ['recipient', ...(filters.status ? ['status'] : []), ...extra],
  })
  let recipientEmail: string | undefined
  const rawRecipient = read.value('recipient')
  if (rawRecipient !== undefined) {
    const parsed = EmailSchema.safeParse(rawRecipient)
    if (parsed.success) recipientEmail = parsed.data
    else read.refuse('recipient', 'recipient must be a valid e-mail address')
  }
  const status = filters.status
    ? oneOf(read, 'status', GRANT_STATES, `status must be one of ${GRANT_STATES.join(', ')}`)
    : undefined
  const { limit, cursor: after } = read.done()
  return {
    limit,
    ...(after === undefined ? {} : { after }),
    ...(recipientEmail === undefined ? {} : { recipientEmail }),
    ...(status === undefined ? {} : { status }),
  }
}
