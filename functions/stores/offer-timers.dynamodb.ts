import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { TimerRecord } from '../domain/offer-timers'
import * as RETRY from '../runtime/retry-policies'
import { type BatchOptions, batchWriteAll } from './kernel/batch'
import { conditional } from './kernel/conditional'
import type { CallOptions } from './members.store'
import type { OfferTimerStore, SweptTimer, TimerPage } from './offer-timers.store'

const timerKey = (timer: Record<string, unknown>) => `${timer.slot} ${timer.due}`

/** The timers table on DynamoDB: partition `slot`, sort key `due` (`<ISO time>#<grantId>#<kind>`). */
export class DynamoDbOfferTimerStore implements OfferTimerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { timers: string },
  ) {}

  /**
   * Puts timers (the stream reader's; a timer put again is the same item, its lease cleared).
   * Answers those still unwritten after RETRY.unprocessed's sends; a send that fails is tried
   * again too, after `failedSend` has seen its error.
   */
  async putTimers(
    timers: readonly TimerRecord[],
    deps: Pick<BatchOptions, 'sleep' | 'random'> & { failedSend?: (error: unknown) => void } = {},
  ): Promise<TimerRecord[]> {
    const { failedSend, ...pacing } = deps
    const unwritten = await batchWriteAll(
      this.client,
      this.tables.timers,
      timers.map((timer) => ({ PutRequest: { Item: timer } })),
      {
        policy: RETRY.streamTimerWrite,
        ...pacing,
        failedSend: (error) => {
          failedSend?.(error)
          return true
        },
      },
    )
    // DynamoDB hands back copies: answer the timers asked for, by key.
    const left = new Set(unwritten.map(({ PutRequest }) => timerKey(PutRequest?.Item ?? {})))
    return timers.filter((timer) => left.has(timerKey(timer)))
  }

  async dueTimers(
    input: { slot: string; upTo: string; limit: number; start?: Record<string, unknown> },
    { signal }: CallOptions = {},
  ): Promise<TimerPage> {
    const page = await this.client.send(
      new QueryCommand({
        TableName: this.tables.timers,
        KeyConditionExpression: '#slot = :slot AND #due <= :upTo',
        ExpressionAttributeNames: { '#slot': 'slot', '#due': 'due' },
        ExpressionAttributeValues: { ':slot': input.slot, ':upTo': input.upTo },
        Limit: input.limit,
        // A timer written a moment ago by the stream reader is seen; the table has no index to lag.
        ConsistentRead: true,
        ...(input.start === undefined ? {} : { ExclusiveStartKey: input.start }),
      }),
      { abortSignal: signal },
    )
    return {
      timers: (page.Items ?? []) as SweptTimer[],
      ...(page.LastEvaluatedKey === undefined ? {} : { next: page.LastEvaluatedKey }),
    }
  }

  async claimTimer(
    timer: Pick<TimerRecord, 'slot' | 'due'>,
    lease: { now: number; until: number },
    { signal }: CallOptions = {},
  ): Promise<boolean> {
    const written = await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.timers,
          Key: { slot: timer.slot, due: timer.due },
          UpdateExpression: 'SET #lease = :until',
          // Still there (not deleted by another sweep), and nobody's, or a lease run out (a sweep
          // that stopped half-way: its timer is taken up again).
          ConditionExpression:
            'attribute_exists(#due) AND (attribute_not_exists(#lease) OR #lease <= :now)',
          ExpressionAttributeNames: { '#due': 'due', '#lease': 'leaseUntil' },
          ExpressionAttributeValues: { ':until': lease.until, ':now': lease.now },
        }),
        { abortSignal: signal },
      ),
    )
    return !!written
  }

  async releaseTimer(
    timer: Pick<TimerRecord, 'slot' | 'due'>,
    until: number,
    { signal }: CallOptions = {},
  ): Promise<void> {
    // A refused condition (deleted, or taken again since): nothing of ours to give back.
    await conditional(
      this.client.send(
        new UpdateCommand({
          TableName: this.tables.timers,
          Key: { slot: timer.slot, due: timer.due },
          UpdateExpression: 'REMOVE #lease',
          ConditionExpression: '#lease = :until',
          ExpressionAttributeNames: { '#lease': 'leaseUntil' },
          ExpressionAttributeValues: { ':until': until },
        }),
        { abortSignal: signal },
      ),
    )
  }

  async deleteTimer(
    timer: Pick<TimerRecord, 'slot' | 'due'>,
    { signal }: CallOptions = {},
  ): Promise<void> {
    // Unconditional: deleting what another sweep deleted first is the same end state.
    await this.client.send(
      new DeleteCommand({
        TableName: this.tables.timers,
        Key: { slot: timer.slot, due: timer.due },
      }),
      { abortSignal: signal },
    )
  }
}
