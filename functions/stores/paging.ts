import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb'

/**
 * Reading DynamoDB a page at a time, for the admin stores: every page of a Scan or Query
 * (BatchGetItem of any number of keys: kernel/batch.ts; the audit log's cursor: domain/audit-entry.ts).
 */

/** Sends one command with the store's signal (a request's deadline). */
export type Send = <T>(command: { readonly input: object }) => Promise<T>

/** A Send over a client, every call abandoned when `signal` aborts. */
export const sendWith =
  (client: DynamoDBDocumentClient, signal: AbortSignal | undefined): Send =>
  <T>(command: { readonly input: object }) =>
    client.send(command as never, { abortSignal: signal }) as Promise<T>

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
