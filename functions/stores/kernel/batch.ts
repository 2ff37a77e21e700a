import {
  BatchGetCommand,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb'
import { type Backoff, type RetryDeps, retrying } from '../../runtime/retry'
import * as RETRY from '../../runtime/retry-policies'
import { throttled } from '../store-errors'

/**
 * BatchGetItem and BatchWriteItem of any size, with the one loop that asks again for what
 * DynamoDB left unprocessed (paced by `retrying` under a named policy, RETRY.unprocessed by
 * default; sleep and random injectable).
 */

type Key = Record<string, unknown>

/** What one BatchGetItem asks of each table. */
export type BatchGetRequest = Record<
  string,
  {
    Keys: Key[]
    ConsistentRead?: boolean
    ProjectionExpression?: string
    ExpressionAttributeNames?: Record<string, string>
  }
>

export type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number]

export type BatchOptions = RetryDeps & {
  signal?: AbortSignal | undefined
  /** How often, how far apart; RETRY.unprocessed by default. */
  policy?: Backoff
}

/** Something was left unprocessed: thrown between sends so that `retrying` paces them. */
class Unprocessed extends Error {}

/**
 * The one unprocessed-keys loop: `sendOnce` sends what is pending and answers what is left (or
 * undefined when nothing is). Answers what is still left after the policy's sends. A send that
 * throws is tried again only when `failedSend` says so (else thrown).
 */
const untilProcessed = async <P>(
  first: P,
  sendOnce: (pending: P) => Promise<P | undefined>,
  {
    policy = RETRY.unprocessed,
    failedSend = () => false,
    ...deps
  }: BatchOptions & { failedSend?: (error: unknown) => boolean },
): Promise<P | undefined> => {
  let pending = first
  return retrying<P | undefined>(
    async () => {
      const left = await sendOnce(pending)
      if (left === undefined) return undefined
      pending = left
      throw new Unprocessed()
    },
    {
      ...deps,
      backoff: policy,
      again: (error) => error instanceof Unprocessed || failedSend(error),
      exhausted: () => pending,
    },
  )
}

/**
 * One BatchGetItem (at most 100 keys, any tables), asked again for the keys left unprocessed:
 * every item found, by table. Still unprocessed after the policy's sends: the store's `throttled`
 * failure (nothing was changed; the caller may try again).
 */
export const batchGet = async (
  client: DynamoDBDocumentClient,
  request: BatchGetRequest,
  options: BatchOptions = {},
): Promise<Record<string, Key[]>> => {
  const found: Record<string, Key[]> = {}
  const left = await untilProcessed(
    request,
    async (pending) => {
      const result = await client.send(new BatchGetCommand({ RequestItems: pending }), {
        abortSignal: options.signal,
      })
      for (const [table, items] of Object.entries(result.Responses ?? {})) {
        found[table] = [...(found[table] ?? []), ...items]
      }
      const unprocessed = result.UnprocessedKeys ?? {}
      return Object.keys(unprocessed).length === 0 ? undefined : (unprocessed as BatchGetRequest)
    },
    options,
  )
  if (left !== undefined) throw throttled('reads left unprocessed')
  return found
}

const slices = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) =>
    items.slice(i * size, (i + 1) * size),
  )

/**
 * The items of one table at `keys`, strongly consistent, 100 keys a call (BatchGetItem's most),
 * up to `parallel` calls in flight (4 by default: a listing of many programs reads all their
 * counter shards in a few round trips' time, not one after the other).
 */
export const batchGetAll = async <T>(
  client: DynamoDBDocumentClient,
  table: string,
  keys: readonly Key[],
  {
    projection = {},
    parallel = 4,
    ...options
  }: BatchOptions & {
    projection?: Pick<BatchGetRequest[string], 'ProjectionExpression' | 'ExpressionAttributeNames'>
    parallel?: number
  } = {},
): Promise<T[]> => {
  const read = async (Keys: Key[]) =>
    (await batchGet(client, { [table]: { Keys, ConsistentRead: true, ...projection } }, options))[
      table
    ] ?? []
  const items: T[] = []
  for (const group of slices(slices(keys, 100), parallel)) {
    for (const found of await Promise.all(group.map(read))) items.push(...(found as T[]))
  }
  return items
}

/** The items of one table whose `keyName` is one of `ids` (repeats read once), in order of calls. */
export const batchGetByKey = (
  client: DynamoDBDocumentClient,
  table: string,
  keyName: string,
  ids: readonly string[],
  options: BatchOptions = {},
): Promise<Record<string, unknown>[]> =>
  batchGetAll(
    client,
    table,
    [...new Set(ids)].map((id) => ({ [keyName]: id })),
    { ...options, parallel: 1 },
  )

/**
 * Puts and deletes on one table, 25 a call (BatchWriteItem's most), each call asked again for
 * what was left unprocessed. Answers the requests still unwritten after the policy's sends (the
 * caller decides: a store throws `throttled`, the stream reader fails the records). A send that
 * throws is tried again when `failedSend` says so.
 */
export const batchWriteAll = async (
  client: DynamoDBDocumentClient,
  table: string,
  requests: readonly WriteRequest[],
  options: BatchOptions & { failedSend?: (error: unknown) => boolean } = {},
): Promise<WriteRequest[]> => {
  const left: WriteRequest[] = []
  for (const slice of slices(requests, 25)) {
    const unwritten = await untilProcessed(
      slice,
      async (pending) => {
        const result = await client.send(
          new BatchWriteCommand({ RequestItems: { [table]: pending } }),
          { abortSignal: options.signal },
        )
        const unprocessed = result.UnprocessedItems?.[table] ?? []
        return unprocessed.length === 0 ? undefined : unprocessed
      },
      options,
    )
    left.push(...(unwritten ?? []))
  }
  return left
}
