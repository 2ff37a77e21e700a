import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { GrantRecord } from '../../domain/grant'
import { grantListSlot } from '../../domain/grant-slots'
import { DynamoDbAdminBase } from '../admin-writes.dynamodb'
import { conditional } from '../kernel/conditional'
import type { GrantSlotBackfill, SlotBackfill } from './grant-slots.store'

/**
 * UpdateItems in flight at once. Each also rewrites the grant's entry in the legacy `byProgram`
 * index (it projects every attribute), whose one partition per program takes at most 1,000
 * writes a second beside the live grants: a few at a time stays well below.
 */
const BACKFILL_CONCURRENCY = 4

/**
 * `grant backfill-slots`, the upgrade step between the two deploys that brought `byProgramSlot`
 * (docs/deploying.md, "Upgrading a stage"): gives every grant written before that index existed its
 * `programSlot`, so that the index lists it.
 */
export class DynamoDbGrantSlotBackfill extends DynamoDbAdminBase implements GrantSlotBackfill {
  /**
   * A consistent Scan of the grants table for items with a `programId` and no `programSlot`
   * (batch items, `batch#...`, have no `programId`), then one conditional UpdateItem each, a few
   * at a time. Idempotent: an item that has a slot (from the grant path since this release, or
   * from an earlier run) is left alone, and one deleted meanwhile is not made again.
   */
  async backfillGrantSlots(): Promise<SlotBackfill> {
    const done: SlotBackfill = { scanned: 0, updated: 0, alreadySet: 0 }
    let start: Record<string, unknown> | undefined
    do {
      const page = await this.send<{
        Items?: Pick<GrantRecord, 'grantId' | 'programId'>[]
        LastEvaluatedKey?: Record<string, unknown>
        ScannedCount?: number
      }>(
        new ScanCommand({
          TableName: this.tables.grants,
          ConsistentRead: true,
          FilterExpression: 'attribute_exists(#program) AND attribute_not_exists(#slot)',
          ProjectionExpression: '#grant, #program',
          ExpressionAttributeNames: {
            '#grant': 'grantId',
            '#program': 'programId',
            '#slot': 'programSlot',
          },
          ExclusiveStartKey: start,
        }),
      )
      done.scanned += page.ScannedCount ?? 0
      const found = page.Items ?? []
      for (let i = 0; i < found.length; i += BACKFILL_CONCURRENCY) {
        const outcomes = await Promise.all(
          found.slice(i, i + BACKFILL_CONCURRENCY).map((grant) => this.setGrantSlot(grant)),
        )
        for (const outcome of outcomes) done[outcome]++
      }
      start = page.LastEvaluatedKey
    } while (start)
    return done
  }

  /**
   * One grant's slot, on condition that it still exists, has none, and is of that program. A
   * replay of the grant's Idempotency-Key may hold the item in its transaction: tried again.
   */
  private setGrantSlot({
    grantId,
    programId,
  }: Pick<GrantRecord, 'grantId' | 'programId'>): Promise<'updated' | 'alreadySet'> {
    return this.retryConflicts(async () => {
      const written = await conditional(
        this.send(
          new UpdateCommand({
            TableName: this.tables.grants,
            Key: { grantId },
            UpdateExpression: 'SET #slot = :slot',
            ConditionExpression:
              'attribute_exists(#grant) AND attribute_not_exists(#slot) AND #program = :program',
            ExpressionAttributeNames: {
              '#grant': 'grantId',
              '#slot': 'programSlot',
              '#program': 'programId',
            },
            ExpressionAttributeValues: {
              ':slot': grantListSlot(programId, grantId),
              ':program': programId,
            },
          }),
        ),
      )
      return written ? 'updated' : 'alreadySet'
    }, `Setting the slot of ${grantId}`)
  }
}
