import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda'
import type { Runtime } from '../composition'
import { figureChangeOf } from '../core/grant-figures'
import type { FigureChange } from '../domain/figures'
import { logger } from '../runtime/logger'
import { DynamoDbFiguresStore } from '../stores/figures.dynamodb'
import { tableChangeOf } from '../stores/stream-records.dynamodb'
import { streamBatchResponse } from './stream-batch-failures'

export type GrantFiguresDeps = {
  /** Waits between tries of a figures transaction (tests pass one that records). */
  sleep?: (ms: number) => Promise<void>
}

/**
 * The GrantFigures function (functions/consumers.ts), the grants stream's second reader: a batch
 * of the stream -> the programs' figures (domain/figures.ts; stores/figures.dynamodb.ts: each
 * change counted once by its grant's marker, so a retried record counts nothing). Answers a
 * partial batch response naming the first record whose figures were not written: Lambda (or
 * local/stream-poller.ts) retries from that record on, so nothing after it is lost. Its lag and
 * its failures are its own: GrantStream's mail, timers and webhooks never wait for it.
 */
export const makeGrantFiguresHandler = (runtime: Runtime, deps: GrantFiguresDeps = {}) => {
  const { sleep } = deps
  const figures = new DynamoDbFiguresStore(runtime.documentClient, runtime.config.tables, {
    clock: runtime.clock,
    ...(sleep ? { sleep } : {}),
  })

  return async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    const changes = event.Records.map(tableChangeOf)
    const figureChanges = changes.flatMap((c) => figureChangeOf(c) ?? []) satisfies FigureChange[]
    const failedRecords = await figures.applyChanges(figureChanges).catch((error: unknown) => {
      logger.error('Figures write failed', { error: (error as Error).name })
      return new Set(figureChanges.map((c) => c.sequenceNumber))
    })

    return streamBatchResponse('Grant figures', changes, failedRecords)
  }
}
