import { randomBytes } from 'node:crypto'
import { decodeCursor, encodeCursor } from './page-cursor'
import type { Actor, AuditEntry } from './people'

/** A time-ordered, unique id: ISO time, then 8 random hex characters. */
export const newAuditEntryId = (now: number) =>
  `${new Date(now).toISOString()}#${randomBytes(4).toString('hex')}`

/** The entry a use case writes beside the change it records (stores/audit.ts's auditPut). */
export const auditEntry = (input: {
  issuerId: string
  actor: Actor
  action: string
  target: AuditEntry['target']
  now: number
  requestId?: string | undefined
  details?: AuditEntry['details']
}): AuditEntry => ({
  issuerId: input.issuerId,
  entryId: newAuditEntryId(input.now),
  at: new Date(input.now).toISOString(),
  actor: input.actor,
  action: input.action,
  target: input.target,
  ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
  ...(input.details === undefined ? {} : { details: input.details }),
})

const AUDIT_ENTRY_ID = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[0-9a-f]{8}$/

/** The opaque cursor of the audit log: the last entry's id (newAuditEntryId), base64url. */
export const encodeAuditCursor = (entryId: string) => encodeCursor(entryId)

/** The entry id a cursor stands for, or undefined when it is not one encodeAuditCursor made. */
export const decodeAuditCursor = (cursor: unknown): string | undefined =>
  decodeCursor(cursor, [AUDIT_ENTRY_ID], 200)?.[0]
