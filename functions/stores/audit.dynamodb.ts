import { QueryCommand } from '@aws-sdk/lib-dynamodb'
import type { AuditEntry } from '../domain/people'
import { DynamoDbAdminBase } from './admin-writes.dynamodb'
import type { AuditLog } from './audit.store'

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
    const items: AuditEntry[] = []
    let start: Record<string, unknown> | undefined =
      after === undefined ? undefined : { issuerId, entryId: after }
    do {
      const page = await this.send<{
        Items?: AuditEntry[]
        LastEvaluatedKey?: Record<string, unknown>
      }>(
        new QueryCommand({
          TableName: this.tables.audit,
          KeyConditionExpression: 'issuerId = :issuer',
          ExpressionAttributeValues: { ':issuer': issuerId },
          ScanIndexForward: false,
          Limit: limit + 1 - items.length,
          ExclusiveStartKey: start,
        }),
      )
      items.push(...(page.Items ?? []))
      start = page.LastEvaluatedKey
    } while (start !== undefined && items.length <= limit)
    if (items.length <= limit) return { items }
    const shown = items.slice(0, limit)
    return { items: shown, last: (shown[shown.length - 1] as AuditEntry).entryId }
  }
}
