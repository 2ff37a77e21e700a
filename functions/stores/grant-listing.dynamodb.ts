import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import { encodeGrantCursor, type GrantCursor, type GrantRecord } from '../domain/grant'
import type { GrantState } from '../domain/grant-lifecycle'
import { allGrantListSlots } from '../domain/grant-slots'
import { type GrantListIndex, INDEX } from '../table-schema'
import type { GrantPage } from './grants.store'

/**
 * A program's grants, newest first, a page at a time, from the listing index: the one reader of
 * the integrators' and the management API's listings (grants.reads.dynamodb.ts) and the admin
 * CLI's (admin.dynamodb.ts).
 *
 * The order is (createdAt desc, grantId desc), and a cursor is the last grant of a page: the next
 * page is what comes strictly after it in that order. Under `byProgramSlot` a program's grants are
 * in GRANT_LIST_SLOTS partitions (functions/domain/grant-slots.ts), so a page reads every slot (one
 * Query per slot, in parallel) and merges. Under the legacy `byProgram` they are in one partition,
 * read the same way. Why this is exact:
 *
 * - Each partition is read with `createdAt <= <cursor's createdAt>`, newest first, continued with
 *   its own LastEvaluatedKey, and every item at or before the cursor is dropped here. Not the
 *   cursor as ExclusiveStartKey: the cursor's grant lives in one slot only, and even there DynamoDB
 *   gives no order to grants of the same `createdAt` (so "after this key" would not mean "after in
 *   our order").
 * - A partition that stopped at LastEvaluatedKey `createdAt = L` may still hold unread grants at L
 *   (in any grantId order) and below. So a grant is placed on the page only once its createdAt is
 *   above every such L of every partition not read to its end: everything before it has been read.
 *   Grants sharing L wait until their partition has been read past L, however many there are.
 * - Reading goes on, in rounds, only in the partitions that may still hold grants before the
 *   page's last place.
 *
 * Cost: one Query per slot in the first round (a page of 25 asks each slot for 10 grants, so one
 * round nearly always fills it), and one per slot still needed in any further round.
 *
 * A page may end short, after `maxReads` rounds (a recipient or status filter drops most of what
 * is read):
 * its cursor then stands 1 ms above the highest L, as `<L + 1 ms> gr_000...0` (below every grant
 * id), so the next page starts right after everything this one settled, and nothing is skipped or
 * shown twice. Such a cursor is given only when it is past the page's own, so a client following
 * cursors always gets further, however many grants share one millisecond.
 */

/** One Query answer, as the document client gives it. */
export type QueryPage = {
  Items?: Record<string, unknown>[]
  LastEvaluatedKey?: Record<string, unknown>
}
export type SendQuery = (input: QueryCommandInput) => Promise<QueryPage>

export type GrantListRequest = {
  table: string
  index: GrantListIndex
  programId: string
  /** Already normalised like `recipient.email` (trimmed, lower-cased). */
  recipientEmail?: string | undefined
  /** Only grants in this state. */
  status?: GrantState | undefined
  limit: number
  after?: GrantCursor | undefined
  /** Rounds of reading for one page; Infinity: until the page is full. */
  maxReads: number
}

/**
 * With a recipient or status filter, the grants one round may evaluate in all its Queries (DynamoDB drops
 * the others after reading them): about 1 MB of grants, what one Query reads at most.
 */
export const FILTERED_ROUND_ITEMS = 2_000

/** Below every real grant id (`gr_` and 26 base32 characters), for a cursor between milliseconds. */
const LOWEST_GRANT_ID = `gr_${'0'.repeat(26)}`

type Partition = {
  keyName: string
  keyValue: string
  /** LastEvaluatedKey of the previous read; undefined with `read` false: not read yet. */
  start?: Record<string, unknown>
  read: boolean
  /** Read to its end. */
  done: boolean
  /** Unread grants of the partition all have createdAt <= this (once read). */
  top?: string
}

const partitionsOf = (index: GrantListIndex, programId: string): Partition[] =>
  index === INDEX.grantsByProgram
    ? [{ keyName: 'programId', keyValue: programId, read: false, done: false }]
    : allGrantListSlots(programId).map((keyValue) => ({
        keyName: 'programSlot',
        keyValue,
        read: false,
        done: false,
      }))

/** Code-unit order, as DynamoDB compares strings (not localeCompare). */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Newest first: createdAt desc, then grantId desc. */
const newestFirst = (a: GrantRecord, b: GrantRecord) =>
  compare(b.createdAt, a.createdAt) || compare(b.grantId, a.grantId)

/** Strictly after `cursor` in the listing's order. */
const isAfter = (grant: GrantCursor, cursor: GrantCursor) =>
  grant.createdAt < cursor.createdAt ||
  (grant.createdAt === cursor.createdAt && grant.grantId < cursor.grantId)

/**
 * How many grants to ask one partition for in a round. Without a filter: its share of what is
 * missing, with a margin, doubled each further round, so that a page stuck on many grants of one
 * millisecond (which wait until their partition is read past it) gets through them in a few
 * rounds. With one, a fixed share of FILTERED_ROUND_ITEMS: the bound on reading is the point.
 */
const readLimit = (missing: number, partitions: number, filtered: boolean, round: number) =>
  filtered
    ? Math.ceil(FILTERED_ROUND_ITEMS / partitions)
    : // The newest `missing` grants of a program fall about evenly into its slots; the margin of
      // sqrt(missing) (about 3 standard deviations of a slot's share) lets one round fill the page
      // almost always. One partition (the legacy index): exactly what is missing.
      Math.min(missing, Math.ceil(missing / partitions) + Math.ceil(Math.sqrt(missing))) *
      2 ** Math.min(round, 10)

export const listGrantPage = async (
  query: SendQuery,
  { table, index, programId, recipientEmail, status, limit, after, maxReads }: GrantListRequest,
): Promise<GrantPage> => {
  // DynamoDB applies a filter after it has read (and counted against Limit) each item.
  const filters = [
    ...(recipientEmail === undefined ? [] : ['#recipient.#email = :email']),
    ...(status === undefined ? [] : ['#status = :status']),
  ]
  // One grant more than the page: the last page says so (no cursor) instead of pointing at an
  // empty one.
  const wanted = limit + 1
  const partitions = partitionsOf(index, programId)
  const read: GrantRecord[] = []

  const readPartition = async (partition: Partition, maxItems: number) => {
    const page = await query({
      TableName: table,
      IndexName: index,
      KeyConditionExpression:
        after === undefined ? '#key = :key' : '#key = :key AND #created <= :created',
      ...(filters.length === 0 ? {} : { FilterExpression: filters.join(' AND ') }),
      ExpressionAttributeNames: {
        '#key': partition.keyName,
        ...(after === undefined ? {} : { '#created': 'createdAt' }),
        ...(recipientEmail === undefined ? {} : { '#recipient': 'recipient', '#email': 'email' }),
        ...(status === undefined ? {} : { '#status': 'status' }),
      },
      ExpressionAttributeValues: {
        ':key': partition.keyValue,
        ...(after === undefined ? {} : { ':created': after.createdAt }),
        ...(recipientEmail === undefined ? {} : { ':email': recipientEmail }),
        ...(status === undefined ? {} : { ':status': status }),
      },
      ScanIndexForward: false,
      Limit: maxItems,
      ...(partition.start === undefined ? {} : { ExclusiveStartKey: partition.start }),
    })
    for (const item of (page.Items ?? []) as GrantRecord[]) {
      if (after === undefined || isAfter(item, after)) read.push(item)
    }
    partition.read = true
    partition.start = page.LastEvaluatedKey
    if (page.LastEvaluatedKey === undefined) partition.done = true
    else partition.top = String(page.LastEvaluatedKey.createdAt)
  }

  for (let rounds = 0; ; rounds++) {
    read.sort(newestFirst)
    const open = partitions.filter((p) => !p.done)
    // Every unread grant has createdAt <= floor (the highest place an open partition stopped
    // at), so the grants above it are settled: nothing unread can come before them. Before the
    // first round nothing is settled.
    const unread = open.some((p) => !p.read)
    const floor = unread
      ? undefined
      : open.reduce<string | undefined>((highest, p) => {
          const top = p.top as string
          return highest === undefined || top > highest ? top : highest
        }, undefined)
    const firstUnsettled =
      floor === undefined ? -1 : read.findIndex((grant) => grant.createdAt <= floor)
    const settled = unread ? 0 : firstUnsettled === -1 ? read.length : firstUnsettled

    if (open.length === 0 || settled >= wanted) {
      const items = read.slice(0, Math.min(limit, settled))
      const last = items[items.length - 1]
      return read.length > limit && last !== undefined
        ? {
            items,
            nextCursor: encodeGrantCursor({ createdAt: last.createdAt, grantId: last.grantId }),
          }
        : { items }
    }

    // Out of reads: the settled grants, and a cursor just above `floor`, before every unread
    // grant and after everything read at a later millisecond (on this page, or filtered out).
    // Only if that cursor is past the page's own, so a client following cursors always gets
    // further: with many grants at the cursor's millisecond, reading goes on until a partition
    // is below it.
    if (rounds >= maxReads && floor !== undefined) {
      const cursor = {
        createdAt: new Date(Date.parse(floor) + 1).toISOString(),
        grantId: LOWEST_GRANT_ID,
      }
      if (after === undefined || isAfter(cursor, after)) {
        return { items: read.slice(0, settled), nextCursor: encodeGrantCursor(cursor) }
      }
    }

    // Read on wherever a grant before the page's last place may still be: every open partition
    // until `wanted` grants are read, then those not yet read below the createdAt of the last
    // place (grants there with a higher id would come before it).
    const boundary = read.length >= wanted ? (read[wanted - 1] as GrantRecord).createdAt : undefined
    const next = open.filter(
      (p) => boundary === undefined || !p.read || (p.top as string) >= boundary,
    )
    const perPartition = readLimit(wanted - settled, next.length, filters.length > 0, rounds)
    await Promise.all(next.map((p) => readPartition(p, perPartition)))
  }
}

/** DynamoDB's answer to a Query on an index the table does not have (any more). */
const isMissingIndex = (error: unknown) =>
  (error as Error).name === 'ValidationException' &&
  /specified index/i.test((error as Error).message)

/**
 * listGrantPage on the index this process was told to read, with one way out: if that is the
 * legacy `byProgram` and the table no longer has it, read `byProgramSlot` from then on. The
 * second deploy of the upgrade deletes `byProgram` before CloudFormation updates the functions
 * that still read it (they depend on the table), and by then every grant is in `byProgramSlot`
 * (`grant backfill-slots` ran before that deploy), so the listings stay up in between. Other
 * errors, and a missing `byProgramSlot`, are thrown as they are.
 */
export class GrantLister {
  constructor(
    private readonly table: string,
    private index: GrantListIndex,
  ) {}

  /** `query` sends one Query (with the caller's abort signal). */
  async list(
    query: SendQuery,
    request: Omit<GrantListRequest, 'table' | 'index'>,
  ): Promise<GrantPage> {
    const index = this.index
    try {
      return await listGrantPage(query, { ...request, table: this.table, index })
    } catch (error) {
      if (index !== INDEX.grantsByProgram || !isMissingIndex(error)) throw error
      this.index = INDEX.grantsByProgramSlot
      return listGrantPage(query, { ...request, table: this.table, index: this.index })
    }
  }
}
