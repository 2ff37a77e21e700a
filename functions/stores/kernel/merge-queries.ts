import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { Send } from '../paging'

export type Key = Record<string, unknown>

/** Where a stream stands in a listing: not read yet, read to its end, or just after this key. */
export type StreamPosition = 'start' | 'done' | Key

export type MergeRequest<T> = {
  /** One Query per stream, in the order the listing wants (ScanIndexForward as needed). */
  queries: readonly QueryCommandInput[]
  /** Each stream's position from the previous page's cursor (all 'start' for a first page). */
  positions: readonly StreamPosition[]
  limit: number
  /** True when `a` comes before `b`: each stream's own order, so the merge is the listing's. */
  before: (a: T, b: T) => boolean
  /** An item's key in its stream's Query (its ExclusiveStartKey, and a position). */
  keyOf: (item: T) => Key
  /** Items one Query asks for (its Limit). */
  readSize: number
  /**
   * The most items the page's Queries may evaluate after the first round (one Query per open
   * stream): with a FilterExpression, DynamoDB reads and drops items, so this bounds a page's cost.
   * 0: one round only.
   */
  maxItems: number
  /** Items passed over (consumed, not shown); all are shown when absent. */
  shown?: (item: T) => boolean
}

export type MergedPage<T> = {
  items: T[]
  /** Each stream's position after the page: the next page's cursor. */
  positions: StreamPosition[]
  /** A stream is not read to its end: another page may hold items. */
  more: boolean
}

type Stream<T> = {
  query: QueryCommandInput
  /** Where the last read started (a position), and what it read. */
  from: StreamPosition
  items: T[]
  next: number
  /** LastEvaluatedKey of the last read; undefined after a read: read to its end. */
  after?: Key
  read: boolean
  done: boolean
}

/**
 * A k-way merge of several Query streams (a table's slots, one partition each, or an index's),
 * each read in its own order from its own position, into one page in the listing's order. An item
 * is placed only while every stream that may hold more has an item read to compare with: a stream
 * read to the end of what it read is read again (from its LastEvaluatedKey, in parallel with the
 * others stalled) while the page's budget of items lasts, so a page may end short of `limit` and
 * still have more. Positions are per stream, so nothing is read twice or skipped across pages.
 */
export const mergeQueries = async <T>(
  send: Send,
  request: MergeRequest<T>,
): Promise<MergedPage<T>> => {
  const { limit, before, keyOf, readSize, shown = () => true } = request
  const streams: Stream<T>[] = request.queries.map((query, n) => {
    const from = request.positions[n] ?? 'start'
    return { query, from, items: [], next: 0, read: false, done: from === 'done' }
  })
  let budget = request.maxItems
  const read = async (stream: Stream<T>, size: number) => {
    const start = stream.read ? stream.after : stream.from
    const page = await send<{ Items?: T[]; LastEvaluatedKey?: Key }>(
      new QueryCommand({
        ...stream.query,
        Limit: size,
        ...(start === undefined || start === 'start' || start === 'done'
          ? {}
          : { ExclusiveStartKey: start }),
      }),
    )
    stream.from = start ?? 'start'
    stream.read = true
    stream.items = page.Items ?? []
    stream.next = 0
    stream.after = page.LastEvaluatedKey
    stream.done = page.LastEvaluatedKey === undefined
  }
  const open = streams.filter((s) => !s.done)
  await Promise.all(open.map((s) => read(s, readSize)))

  const items: T[] = []
  while (items.length < limit) {
    const stalled = streams.filter((s) => !s.done && s.next === s.items.length)
    if (stalled.length > 0) {
      if (budget <= 0) break
      const size = Math.max(1, Math.min(readSize, Math.floor(budget / stalled.length)))
      budget -= size * stalled.length
      await Promise.all(stalled.map((s) => read(s, size)))
      continue
    }
    let best: Stream<T> | undefined
    for (const s of streams) {
      const head = s.items[s.next]
      if (head === undefined) continue
      if (best === undefined || before(head, best.items[best.next] as T)) best = s
    }
    if (best === undefined) break
    const item = best.items[best.next] as T
    best.next += 1
    if (shown(item)) items.push(item)
  }
  const positions = streams.map((s): StreamPosition => {
    if (s.next === s.items.length) return s.done ? 'done' : (s.after ?? s.from)
    return s.next === 0 ? s.from : keyOf(s.items[s.next - 1] as T)
  })
  return { items, positions, more: positions.some((p) => p !== 'done') }
}
