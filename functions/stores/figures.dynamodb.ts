import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import {
  allHolderSlots,
  countedChanges,
  DAILY_COUNTERS,
  DAILY_SHARDS,
  type DailyCounter,
  dailyKey,
  decodeHoldersCursor,
  encodeHoldersCursor,
  type FigureChange,
  holderKey,
  holderSlot,
  isCounted,
  MARKER_KEEP_SECONDS,
  markerKey,
  type SlotPosition,
  sumFigures,
} from '../domain/figures'
import type { Clock } from '../runtime/clock'
import { type RetryDeps, retrying } from '../runtime/retry'
import * as RETRY from '../runtime/retry-policies'
import { INDEX } from '../table-schema'
import type { DailyFigure, FiguresReader, FiguresWriter, HoldersPage } from './figures.store'
import { batchGetAll } from './kernel/batch'
import { mergeQueries } from './kernel/merge-queries'
import { type TransactItem, transact } from './kernel/transact'
import { queryAll, sendWith } from './paging'
import { transientKind } from './store-errors'

/**
 * Items per transaction (TransactWriteItems takes 100): a transaction takes its write units on
 * every partition at once, and in the contention model 100-item transactions starved behind
 * smaller writes at 2,000 grants a second (498 of 2,063 records given up); 50 drain in 3.8 s.
 */
const TRANSACT_MAX = 50
const MARKER_SK = '-'

/** Another try of a chunk: a racing batch counted a grant first, or held an item, or throttled. */
class TryAgain extends Error {}

type HolderItem = {
  holderSlot: string
  pk: string
  sk: string
  email: string
  accepted: number
  pending: number
}

/**
 * The figures table on DynamoDB (functions/table-schema.ts `figures`; the rules are
 * domain/figures.ts). Writes: per batch one BatchGetItem of the grants' markers, then one
 * TransactWriteItems per chunk of at most 100 items (the chunk's markers, conditional on the
 * version counted so far, and ADDs to its holders and one of DAILY_SHARDS counter items per day):
 * a change is counted exactly when its marker moves. Reads: a holders page is one Query per holder
 * slot, merged; a range of days is one Query (two past 1 MB). Never a scan.
 */
export class DynamoDbFiguresStore implements FiguresReader, FiguresWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { figures: string },
    private readonly deps: { clock: Clock } & Pick<RetryDeps, 'sleep' | 'random'>,
  ) {}

  async applyChanges(changes: readonly FigureChange[]): Promise<Set<string>> {
    const failed = new Set<string>()
    const counting = changes.filter(isCounted)
    if (counting.length === 0) return failed
    let counted: Map<string, number>
    try {
      counted = await this.countedVersions(counting.map((c) => c.grantId))
    } catch (error) {
      if (transientKind(error) === undefined) throw error
      for (const c of counting) failed.add(c.sequenceNumber)
      return failed
    }
    for (const chunk of chunksOf(countedChanges(counting, counted))) {
      const grants = new Set(chunk.map((c) => c.grantId))
      const mine = counting.filter((c) => grants.has(c.grantId))
      if ((await this.writeChunk(mine, chunk)) === 'done') continue
      for (const c of mine) failed.add(c.sequenceNumber)
    }
    return failed
  }

  /** The version counted so far of each grant (strongly consistent; absent: nothing counted). */
  private async countedVersions(grantIds: readonly string[]): Promise<Map<string, number>> {
    const keys = [...new Set(grantIds)].map((id) => ({ pk: markerKey(id), sk: MARKER_SK }))
    const items = await batchGetAll<{ grantId: string; version: number }>(
      this.client,
      this.tables.figures,
      keys,
      {
        projection: {
          ProjectionExpression: 'grantId, #v',
          ExpressionAttributeNames: { '#v': 'version' },
        },
        ...this.pacing(),
      },
    )
    return new Map(items.map((item) => [item.grantId, item.version]))
  }

  private pacing() {
    const { sleep, random } = this.deps
    return { ...(sleep ? { sleep } : {}), ...(random ? { random } : {}) }
  }

  /**
   * Writes one chunk (`counting`: every countable change of its grants; `first`: those that count
   * by the markers read for the batch). A failed marker condition means another delivery counted
   * a grant first: its markers are read again and the chunk rebuilt; a conflict picks another
   * daily shard. Under RETRY.figuresWrite; `unavailable` when its tries run out.
   */
  private async writeChunk(
    counting: readonly FigureChange[],
    first: readonly FigureChange[],
  ): Promise<'done' | 'unavailable'> {
    let changes = first
    let reread = false
    const random = this.deps.random ?? Math.random
    return retrying<'done' | 'unavailable'>(
      async () => {
        if (reread)
          changes = countedChanges(counting, await this.countedVersions(grantIdsOf(counting)))
        if (changes.length === 0) return 'done'
        const shard = Math.floor(random() * DAILY_SHARDS)
        const outcome = await transact(this.client, this.itemsOf(changes, shard))
        if (outcome.kind === 'done') return 'done'
        reread = outcome.kind === 'failed'
        throw new TryAgain(outcome.kind)
      },
      {
        backoff: RETRY.figuresWrite,
        again: (error) => error instanceof TryAgain || transientKind(error) !== undefined,
        exhausted: () => 'unavailable' as const,
        ...this.pacing(),
      },
    )
  }

  /** The transaction of a chunk: its markers, then its holders' and days' sums. */
  private itemsOf(changes: readonly FigureChange[], shard: number): TransactItem[] {
    const table = this.tables.figures
    const last = new Map<string, FigureChange>()
    for (const c of changes) last.set(c.grantId, c)
    const purgeAt = Math.floor(this.deps.clock.now() / 1000) + MARKER_KEEP_SECONDS
    const markers = [...last.values()].map(
      (c): TransactItem => ({
        Update: {
          TableName: table,
          Key: { pk: markerKey(c.grantId), sk: MARKER_SK },
          UpdateExpression: `SET grantId = :g, #v = :v${c.final ? ', purgeAt = :p' : ''}`,
          ConditionExpression: 'attribute_not_exists(#v) OR #v < :v',
          ExpressionAttributeNames: { '#v': 'version' },
          ExpressionAttributeValues: {
            ':g': c.grantId,
            ':v': c.version,
            ...(c.final ? { ':p': purgeAt } : {}),
          },
        },
      }),
    )
    const { holders, daily } = sumFigures(changes)
    const holderItems = holders.map(
      (h): TransactItem => ({
        Update: {
          TableName: table,
          Key: { pk: holderKey(h.programId, h.recipientKey), sk: h.recipientKey },
          UpdateExpression: 'SET email = :e, holderSlot = :s ADD accepted :a, pending :p',
          ExpressionAttributeValues: {
            ':e': h.recipientKey,
            ':s': holderSlot(h.programId, h.recipientKey),
            ':a': h.accepted,
            ':p': h.pending,
          },
        },
      }),
    )
    const dailyItems = daily.map((d): TransactItem => {
      const counts = Object.entries(d.counts) as [DailyCounter, number][]
      return {
        Update: {
          TableName: table,
          Key: { pk: dailyKey(d.programId), sk: `${d.date}#${shard}` },
          UpdateExpression: `ADD ${counts.map(([name]) => `#${name} :${name}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(counts.map(([name]) => [`#${name}`, name])),
          ExpressionAttributeValues: Object.fromEntries(counts.map(([name, n]) => [`:${name}`, n])),
        },
      }
    })
    return [...markers, ...holderItems, ...dailyItems]
  }

  async holdersPage(
    programId: string,
    page: { limit: number; cursor?: string },
  ): Promise<HoldersPage | 'invalid_cursor' | 'unavailable'> {
    const slots = allHolderSlots(programId)
    const positions: SlotPosition[] =
      page.cursor === undefined
        ? slots.map(() => 'start')
        : (decodeHoldersCursor(page.cursor) ?? [])
    if (positions.length !== slots.length) return 'invalid_cursor'
    const limit = Math.min(100, Math.max(1, Math.floor(page.limit)))
    try {
      const merged = await mergeQueries<HolderItem>(sendWith(this.client, undefined), {
        queries: slots.map((slot) => ({
          TableName: this.tables.figures,
          IndexName: INDEX.holdersByAccepted,
          KeyConditionExpression: 'holderSlot = :s',
          ExpressionAttributeValues: { ':s': slot },
          ProjectionExpression: 'holderSlot, pk, sk, email, accepted, pending',
          ScanIndexForward: false,
        })),
        positions: positions.map((at, n) =>
          at === 'start' || at === 'done'
            ? at
            : {
                holderSlot: slots[n],
                accepted: at.accepted,
                pk: `holder#${slots[n]}`,
                sk: at.recipientKey,
              },
        ),
        limit,
        // The index's order: accepted desc, then address.
        before: (a, b) =>
          a.accepted > b.accepted || (a.accepted === b.accepted && a.email < b.email),
        keyOf: ({ holderSlot, accepted, pk, sk }) => ({ holderSlot, accepted, pk, sk }),
        readSize: limit + 1,
        // One Query per slot a page, as before the merge was shared: a page ends where a slot
        // with more to read has run out of what was read.
        maxItems: 0,
        // A holder with nothing left (every grant returned) is passed over.
        shown: (item) => item.accepted !== 0 || item.pending !== 0,
      })
      const items = merged.items.map(({ email, accepted, pending }) => ({
        email,
        accepted,
        pending,
      }))
      if (!merged.more) return { items }
      const after = merged.positions.map(
        (p): SlotPosition =>
          p === 'start' || p === 'done'
            ? p
            : { accepted: Number(p.accepted), recipientKey: String(p.sk) },
      )
      return { items, nextCursor: encodeHoldersCursor(after) }
    } catch (error) {
      if (transientKind(error) === undefined) throw error
      return 'unavailable'
    }
  }

  async dailyFigures(
    programId: string,
    from: string,
    to: string,
  ): Promise<DailyFigure[] | 'unavailable'> {
    // DynamoDB refuses a BETWEEN whose bounds are reversed; such a range has no days.
    if (from > to) return []
    try {
      const items = await queryAll<Record<string, unknown> & { sk: string }>(
        sendWith(this.client, undefined),
        {
          TableName: this.tables.figures,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': dailyKey(programId),
            ':from': `${from}#`,
            ':to': `${to}#~`,
          },
        },
      )
      const days = new Map<string, DailyFigure>()
      for (const item of items) {
        const date = item.sk.slice(0, 10)
        const day = days.get(date) ?? emptyDay(date)
        for (const name of DAILY_COUNTERS) day[name] += Number(item[name] ?? 0)
        days.set(date, day)
      }
      return [...days.values()]
    } catch (error) {
      if (transientKind(error) === undefined) throw error
      return 'unavailable'
    }
  }
}

const grantIdsOf = (changes: readonly FigureChange[]) => changes.map((c) => c.grantId)

const emptyDay = (date: string): DailyFigure => ({
  date,
  ...(Object.fromEntries(DAILY_COUNTERS.map((name) => [name, 0])) as Record<DailyCounter, number>),
})

/**
 * Chunks of a batch's counted changes, each one transaction of at most TRANSACT_MAX items (a
 * marker per grant, an update per distinct holder and day): a grant's changes stay together so
 * its marker moves with everything it counted.
 */
export const chunksOf = (changes: readonly FigureChange[]): FigureChange[][] => {
  const byGrant = new Map<string, FigureChange[]>()
  for (const c of changes) byGrant.set(c.grantId, [...(byGrant.get(c.grantId) ?? []), c])
  const chunks: FigureChange[][] = []
  let current: FigureChange[] = []
  let keys = new Set<string>()
  for (const [grantId, group] of byGrant) {
    const added = new Set([`m ${grantId}`])
    for (const c of group) {
      for (const h of c.holders) added.add(`h ${h.programId} ${h.recipientKey}`)
      for (const d of c.daily) added.add(`d ${d.programId} ${d.date}`)
    }
    const union = new Set([...keys, ...added])
    if (union.size > TRANSACT_MAX && current.length > 0) {
      chunks.push(current)
      current = []
      keys = added
    } else keys = union
    current.push(...group)
  }
  if (current.length > 0) chunks.push(current)
  return chunks
}
