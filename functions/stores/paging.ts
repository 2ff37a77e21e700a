import {
  BatchGetCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb'
import { sleep } from '../runtime/sleep'
import { throttled } from './store-errors'

/**
 * Reading DynamoDB a page at a time, for the admin stores: every page of a Scan or Query,
 * consistent BatchGetItem of any number of keys, and the audit log's opaque cursor.
 */

/** Sends one command with the store's signal (a request's deadline). */
export type Send = <T>(command: { readonly input: object }) => Promise<T>

type Key = Record<string, unknown>

/** Follows LastEvaluatedKey to the end. */
const allPages = async <T>(
  send: Send,
  page: (start: Key | undefined) => ScanCommand | QueryCommand,
): Promise<T[]> => {
  const items: T[] = []
  let start: Key | undefined
  do {
    const result = await send<{ Items?: T[]; LastEvaluatedKey?: Key }>(page(start))
    items.push(...(result.Items ?? []))
    start = result.LastEvaluatedKey
  } while (start)
  return items
}

export const scanAll = <T>(send: Send, input: ScanCommandInput): Promise<T[]> =>
  allPages<T>(send, (start) => new ScanCommand({ ...input, ExclusiveStartKey: start }))

export const queryAll = <T>(send: Send, input: QueryCommandInput): Promise<T[]> =>
  allPages<T>(send, (start) => new QueryCommand({ ...input, ExclusiveStartKey: start }))

/**
 * Strongly consistent, 100 keys a call (BatchGetItem's most), up to 4 calls in flight: a listing
 * of many programs reads all their counter shards in a few round trips' time, not one after the
 * other. Asks again for what DynamoDB left unprocessed, 8 times at most.
 */
export const batchGetAll = async <T>(
  send: Send,
  signal: AbortSignal | undefined,
  table: string,
  keys: Key[],
  projection: {
    ProjectionExpression?: string
    ExpressionAttributeNames?: Record<string, string>
  } = {},
): Promise<T[]> => {
  const chunk = async (slice: Key[]) => {
    const found: T[] = []
    let pending = slice
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 8) throw throttled('reads left unprocessed')
      if (attempt > 0) await sleep(25 * 2 ** attempt, signal)
      const result = await send<{
        Responses?: Record<string, T[]>
        UnprocessedKeys?: Record<string, { Keys?: Key[] }>
      }>(
        new BatchGetCommand({
          RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ...projection } },
        }),
      )
      found.push(...(result.Responses?.[table] ?? []))
      pending = result.UnprocessedKeys?.[table]?.Keys ?? []
    }
    return found
  }
  const slices: Key[][] = []
  for (let i = 0; i < keys.length; i += 100) slices.push(keys.slice(i, i + 100))
  const items: T[] = []
  for (let i = 0; i < slices.length; i += 4) {
    for (const found of await Promise.all(slices.slice(i, i + 4).map(chunk))) items.push(...found)
  }
  return items
}

/** The opaque cursor of the audit log: the last entry's id (audit.ts's newAuditEntryId), base64url. */
export const encodeAuditCursor = (entryId: string) =>
  Buffer.from(entryId, 'utf8').toString('base64url')

const AUDIT_ENTRY_ID = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[0-9a-f]{8}$/

/** The entry id a cursor stands for, or undefined when it is not one encodeAuditCursor made. */
export const decodeAuditCursor = (cursor: unknown): string | undefined => {
  if (typeof cursor !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined
  const entryId = Buffer.from(cursor, 'base64url').toString('utf8')
  return AUDIT_ENTRY_ID.test(entryId) && encodeAuditCursor(entryId) === cursor ? entryId : undefined
}
