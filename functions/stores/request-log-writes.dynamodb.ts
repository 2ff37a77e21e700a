import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { REQUEST_LOG_DAYS, type RequestLogEntry, requestLogPartition } from '../domain/request-log'
import * as RETRY from '../runtime/retry-policies'
import { type BatchOptions, batchWriteAll } from './kernel/batch'
import { isTransient } from './kernel/dynamodb-errors'
import type { RequestLogCallOptions, RequestLogStore } from './request-log.store'

const DAY_SECONDS = 24 * 60 * 60

/** The attributes an item of the `requests` table holds beside the entry's own fields. */
export const REQUEST_LOG_ITEM_KEYS = ['pk', 'sk', 'purgeAt'] as const

/** An entry's key in the `requests` table: its issuer, mode and slot, then its id (it sorts by time). */
export const requestLogKey = (entry: Pick<RequestLogEntry, 'issuerId' | 'mode' | 'requestId'>) => ({
  pk: requestLogPartition(entry.issuerId, entry.mode, entry.requestId),
  sk: entry.requestId,
})

/** The item of an entry: its fields, its key, and when DynamoDB's TTL may delete it (epoch s). */
export const requestLogItem = (entry: RequestLogEntry) => ({
  ...entry,
  ...requestLogKey(entry),
  purgeAt: Math.floor(Date.parse(entry.at) / 1000) + REQUEST_LOG_DAYS * DAY_SECONDS,
})

/**
 * The request log's writes (the RequestLog writer's, functions/core/request-log-writer.ts):
 * BatchWriteItem puts through the kernel's one batch loop, 25 a call. An entry's item is keyed by
 * its request id, so an entry written twice (a log event delivered again, an invocation retried)
 * is the same item put again. Combine with the reads (`listEntries`, `getEntry`) into a
 * RequestLogStore: `{ ...makeRequestLogWrites(client, table), ...reads }`.
 */
export const makeRequestLogWrites = (
  client: DynamoDBDocumentClient,
  table: string,
  pacing: Pick<BatchOptions, 'sleep' | 'random'> = {},
): Pick<RequestLogStore, 'putEntries'> => ({
  async putEntries(entries: readonly RequestLogEntry[], { signal }: RequestLogCallOptions = {}) {
    // One put per request id: BatchWriteItem refuses a call that names one key twice.
    const byId = new Map(entries.map((entry) => [entry.requestId, entry]))
    const left = await batchWriteAll(
      client,
      table,
      [...byId.values()].map((entry) => ({ PutRequest: { Item: requestLogItem(entry) } })),
      { policy: RETRY.requestLogWrite, signal, ...pacing, failedSend: isTransient },
    )
    return left.length === 0 ? 'done' : 'unavailable'
  },
})
