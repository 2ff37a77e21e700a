import { decodeCursor, encodeCursor } from '../domain/page-cursor'
import type { CallOptions } from './members.store'

/**
 * An issuer's TEST inbox (table `inbox`): the offer e-mail of TEST grants as rendered, never
 * handed to SES, so an integrator can read it and follow its link. Written by the offer mailer,
 * read by the console's inbox page. Kept 30 days (`purgeAt`, the table's TTL).
 */
export type InboxMessage = {
  issuerId: string
  /** `<ISO time>#<8 hex>`: sorts by time, newest last. */
  messageId: string
  mode: 'TEST'
  grantId: string
  to: string
  subject: string
  text: string
  html: string
  createdAt: string
  /** Epoch seconds: DynamoDB's TTL deletes the message after this. */
  purgeAt: number
}

/** How long a TEST inbox keeps a message. */
export const INBOX_KEEP_DAYS = 30

/** `done`: written. `clash`: a message with that id exists already (nothing overwritten). */
export type InboxPutOutcome = { outcome: 'done'; message: InboxMessage } | { outcome: 'clash' }

export interface InboxStore {
  /** A new message, stamped at `now` (its id and purge time are made here). */
  put(
    message: Omit<InboxMessage, 'messageId' | 'createdAt' | 'purgeAt' | 'mode'>,
    now: number,
    options?: CallOptions,
  ): Promise<InboxPutOutcome>
  /**
   * The issuer's messages, newest first, at most `limit`, after the message `after` (exclusive);
   * `last` is set only when another page exists.
   */
  list(
    input: { issuerId: string; limit: number; after?: string | undefined },
    options?: CallOptions,
  ): Promise<{ items: InboxMessage[]; last?: string }>
}

const MESSAGE_ID = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[0-9a-f]{8}$/

/** The opaque cursor of an inbox page: the last message's id, base64url. */
export const encodeInboxCursor = (messageId: string) => encodeCursor(messageId)

/** The message id a cursor stands for, or undefined when it is not one encodeInboxCursor made. */
export const decodeInboxCursor = (cursor: unknown): string | undefined =>
  decodeCursor(cursor, [MESSAGE_ID])?.[0]
