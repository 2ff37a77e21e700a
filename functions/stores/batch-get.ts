import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { sleep as realSleep } from '../runtime/sleep'
import { throttled } from './store-errors'

/** What one BatchGetItem asks of each table. */
export type BatchGetRequest = Record<
  string,
  { Keys: Record<string, unknown>[]; ConsistentRead: boolean }
>

type Options = {
  signal?: AbortSignal | undefined
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

/**
 * One BatchGetItem, asked again for the keys DynamoDB hands back unprocessed (with a short
 * backoff, at most 5 sends): every item found, by table. Still unprocessed after that, the
 * store's `throttled` failure (nothing was changed; the caller may try again).
 */
export const batchGet = async (
  client: DynamoDBDocumentClient,
  request: BatchGetRequest,
  { signal, sleep = realSleep }: Options = {},
): Promise<Record<string, Record<string, unknown>[]>> => {
  const found: Record<string, Record<string, unknown>[]> = {}
  let pending = request
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await sleep(20 * 2 ** (attempt - 1), signal)
    const result = await client.send(new BatchGetCommand({ RequestItems: pending }), {
      abortSignal: signal,
    })
    for (const [table, items] of Object.entries(result.Responses ?? {})) {
      found[table] = [...(found[table] ?? []), ...items]
    }
    const unprocessed = result.UnprocessedKeys ?? {}
    if (Object.keys(unprocessed).length === 0) return found
    pending = unprocessed as BatchGetRequest
  }
  throw throttled('BatchGetItem left keys unprocessed 5 times')
}

/**
 * The items of one table whose `keyName` is one of `ids` (repeats read once), strongly
 * consistent, in requests of 100 keys (BatchGetItem's limit).
 */
export const batchGetByKey = async (
  client: DynamoDBDocumentClient,
  table: string,
  keyName: string,
  ids: readonly string[],
  options: Options = {},
): Promise<Record<string, unknown>[]> => {
  const found: Record<string, unknown>[] = []
  const unique = [...new Set(ids)]
  for (let i = 0; i < unique.length; i += 100) {
    const Keys = unique.slice(i, i + 100).map((id) => ({ [keyName]: id }))
    const read = await batchGet(client, { [table]: { Keys, ConsistentRead: true } }, options)
    found.push(...(read[table] ?? []))
  }
  return found
}
