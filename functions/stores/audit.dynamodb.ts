import type { AuditEntry } from '../domain/people'
import { DynamoDbAdminBase } from './admin-writes.dynamodb'
import type { AuditLog } from './audit.store'
import { queryPage } from './kernel/query-page'

/** Reads of the audit table (entries are written by audit.ts's auditPut, in each change). */
export class DynamoDbAuditLog extends DynamoDbAdminBase implements AuditLog {
  /**
   * Newest first. Asks for one entry more than the page, so `last` is set only when another page
   * exists (a page that ends exactly at the end of the log has no next cursor).
   */
  async listAudit({
    issuerId,
    limit,
    after,
  }: {
    issuerId: string
    limit: number
    after?: string
  }): Promise<{ items: AuditEntry[]; last?: string }> {
    const { items, last } = await queryPage<AuditEntry>(
      this.send,
      {
        TableName: this.tables.audit,
        KeyConditionExpression: 'issuerId = :issuer',
        ExpressionAttributeValues: { ':issuer': issuerId },
        ScanIndexForward: false,
        ExclusiveStartKey: after === undefined ? undefined : { issuerId, entryId: after },
      },
      limit,
    )
    return last ? { items, last: last.entryId } : { items }
  }
}
