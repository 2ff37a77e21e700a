import { QueryCommand } from '@aws-sdk/lib-dynamodb'
import { INDEX } from '../shared/table-schema'
import { DynamoDbGrantStore } from './grants.dynamodb'
import {
  type ApiKeyRecord,
  type CallOptions,
  encodeGrantCursor,
  type GrantPage,
  type GrantReads,
  type GrantRecord,
  type ListGrantsInput,
  type ProgramRecord,
} from './grants.store'

/**
 * The reads of programs and grants for integrators and the management API: the grant path's store
 * and these, kept apart so the grant function's bundle carries no Query.
 */
export class DynamoDbGrantReads extends DynamoDbGrantStore implements GrantReads {
  async findProgramWithKey(
    keyHash: string,
    programId: string,
    options: CallOptions = {},
  ): Promise<{ key: ApiKeyRecord | undefined; program: ProgramRecord | undefined }> {
    const [key, program] = await this.keyAnd<ProgramRecord>(
      keyHash,
      this.tables.programs,
      { programId },
      options,
    )
    return { key, program }
  }

  /**
   * Newest first through the `byProgram` index. One more grant than the page holds is asked for,
   * so the last page says so (no cursor) instead of pointing at an empty one. With a recipient
   * filter, DynamoDB reads and drops the program's other grants: at most `maxReads` reads of up to
   * 1 MB each are made, and the page may come back short with a cursor.
   */
  async listGrants({
    programId,
    recipientEmail,
    limit,
    after,
    maxReads = 8,
    signal,
  }: ListGrantsInput): Promise<GrantPage> {
    const items: GrantRecord[] = []
    let start: Record<string, unknown> | undefined =
      after === undefined ? undefined : { programId, ...after }
    for (let reads = 0; reads < maxReads; reads++) {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tables.grants,
          IndexName: INDEX.grantsByProgram,
          KeyConditionExpression: '#program = :program',
          ...(recipientEmail === undefined
            ? {
                ExpressionAttributeNames: { '#program': 'programId' },
                ExpressionAttributeValues: { ':program': programId },
                Limit: limit + 1 - items.length,
              }
            : {
                FilterExpression: '#recipient.#email = :email',
                ExpressionAttributeNames: {
                  '#program': 'programId',
                  '#recipient': 'recipient',
                  '#email': 'email',
                },
                ExpressionAttributeValues: { ':program': programId, ':email': recipientEmail },
              }),
          ScanIndexForward: false,
          ExclusiveStartKey: start,
        }),
        { abortSignal: signal },
      )
      items.push(...((page.Items ?? []) as GrantRecord[]))
      start = page.LastEvaluatedKey
      if (items.length > limit) {
        const kept = items.slice(0, limit)
        const last = kept[kept.length - 1] as GrantRecord
        return {
          items: kept,
          nextCursor: encodeGrantCursor({ createdAt: last.createdAt, grantId: last.grantId }),
        }
      }
      if (start === undefined) return { items }
    }
    // Read as much as one page may: the rest is behind the cursor.
    const last = start as { createdAt: string; grantId: string }
    return {
      items,
      nextCursor: encodeGrantCursor({ createdAt: last.createdAt, grantId: last.grantId }),
    }
  }
}
