import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb'
import type { AuditEntry } from '../domain/people'
import { auditPut } from './audit'
import type { AuditWriter } from './audit-writer.store'
import type { CallOptions } from './members.store'

/** The audit table's lone appends: the same conditional put a transaction holds (auditPut). */
export class DynamoDbAuditWriter implements AuditWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { audit: string },
  ) {}

  async append(entry: AuditEntry, { signal }: CallOptions = {}): Promise<void> {
    await this.client.send(new PutCommand(auditPut(this.tables.audit, entry).Put), {
      abortSignal: signal,
    })
  }
}
