import { randomBytes } from 'node:crypto'
import type { Actor, AuditEntry } from '../domain/people'

/** A time-ordered, unique id: ISO time, then 8 random hex characters. */
export const newAuditEntryId = (now: number) =>
  `${new Date(now).toISOString()}#${randomBytes(4).toString('hex')}`

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

/**
 * The audit entry as one item of a TransactWriteItems, beside the change it records: both are
 * written or neither. `attribute_not_exists` makes the log append-only even against an id clash.
 */
export const auditPut = (table: string, entry: AuditEntry) => ({
  Put: {
    TableName: table,
    Item: entry,
    ConditionExpression: 'attribute_not_exists(#id)',
    ExpressionAttributeNames: { '#id': 'entryId' },
  },
})
