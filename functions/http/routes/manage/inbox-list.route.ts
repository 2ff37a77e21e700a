import { CURSOR_RULE, InvalidInput } from '../../../domain/admin-errors'
import {
  decodeInboxCursor,
  encodeInboxCursor,
  type InboxMessage,
  type InboxStore,
} from '../../../stores/inbox.store'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { manageJson } from '../../manage-http'

export const INBOX_PAGE = { default: 10, max: 50 } as const

/** What the route reads: the issuer's TEST inbox (wiring/manage-mail.deps.ts). */
export type ListInboxDeps = ManageDeps & { readonly inbox: Pick<InboxStore, 'list'> }

/** A message as the console shows it: as rendered, and to whom, for which grant. */
export const inboxResource = (message: InboxMessage) => ({
  id: message.messageId,
  grantId: message.grantId,
  to: message.to,
  subject: message.subject,
  text: message.text,
  html: message.html,
  createdAt: message.createdAt,
})

/**
 * `GET /manage/issuers/{issuerId}/inbox?cursor=&limit=` (viewer): the issuer's TEST inbox, newest
 * first: the offer e-mail of its TEST grants as rendered (never handed to SES), kept 30 days. The
 * cursor is opaque and checked before any read.
 */
export const makeListInboxHandler = ({ inbox, ...deps }: ListInboxDeps) =>
  manageHandler('ListInbox', deps, async ({ event, deadline, membership }) => {
    const params = event.queryStringParameters ?? {}
    const problems: { field: string; rule: string }[] = []
    let limit: number = INBOX_PAGE.default
    if (params.limit !== undefined) {
      limit = /^\d{1,3}$/.test(params.limit) ? Number(params.limit) : 0
      if (limit < 1 || limit > INBOX_PAGE.max) {
        problems.push({
          field: 'limit',
          rule: `must be a whole number from 1 to ${INBOX_PAGE.max}`,
        })
      }
    }
    const after = params.cursor === undefined ? undefined : decodeInboxCursor(params.cursor)
    if (params.cursor !== undefined && after === undefined) {
      problems.push({ field: 'cursor', rule: CURSOR_RULE })
    }
    if (problems.length > 0) throw new InvalidInput(problems)
    const page = await inbox.list(
      { issuerId: membership?.issuerId ?? '', limit, after },
      { signal: deadline.signal },
    )
    return manageJson(200, {
      object: 'list',
      data: page.items.map(inboxResource),
      nextCursor: page.last === undefined ? null : encodeInboxCursor(page.last),
    })
  })
