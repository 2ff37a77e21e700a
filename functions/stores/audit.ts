import type { AuditEntry } from '../domain/people'

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
