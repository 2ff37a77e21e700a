import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import { decodeGrantCursor, type GrantRecord } from '../../functions/domain/grant'
import { GRANT_LIST_SLOTS, grantListSlot } from '../../functions/domain/grant-slots'
import { newId } from '../../functions/domain/ids'
import { toGrantResource } from '../../functions/http/grant-resource'
import { grantCsvLine, toManagedGrant } from '../../functions/http/grant-view'
import { listGrantPage, type QueryPage } from '../../functions/stores/grant-listing.dynamodb'
import { INDEX } from '../../functions/table-schema'

/**
 * The merge of a program's slots (functions/stores/grant-listing.dynamodb.ts) against an index of
 * our own that does what DynamoDB may do and DynamoDB Local does not: grants of one `createdAt`
 * in an order of its own (not by grant id) within a partition, and pages as small as one grant.
 * test/http/grant-slots.http.test.ts runs the same against DynamoDB Local.
 */

/** A small PRNG with a seed, so a failure can be replayed. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const PROGRAM = 'prg_0000000000000000000000test'
const EMAILS = ['ann@example.com', 'bob@example.com', 'cat@example.com', 'rare@example.com']

const grantsFor = (next: () => number, count: number, milliseconds: number): GrantRecord[] =>
  Array.from({ length: count }, () => {
    const grantId = newId('grant')
    // Few distinct milliseconds: most grants share theirs with others, in every slot.
    const createdAt = new Date(
      Date.UTC(2030, 0, 1) + Math.floor(next() * milliseconds),
    ).toISOString()
    const roll = next()
    const email = roll < 0.03 ? 'rare@example.com' : (EMAILS[Math.floor(roll * 3)] as string)
    // Mostly reserved; a few of each later state (the status filter's rare and common cases).
    const life = next()
    const status: GrantRecord['status'] =
      life < 0.7 ? 'reserved' : life < 0.85 ? 'accepted' : life < 0.97 ? 'canceled' : 'expired'
    return {
      grantId,
      programId: PROGRAM,
      issuerId: 'iss_00000000000000000000000000',
      mode: 'TEST',
      recipient: { email },
      reason: 'r',
      amount: 1,
      status,
      createdAt,
      requestHash: 'h',
      programSlot: grantListSlot(PROGRAM, grantId),
    }
  })

/**
 * The listing index as DynamoDB answers a Query: one partition's items by createdAt, newest
 * first, grants of one createdAt in the index's own order (here: random, fixed per index), at
 * most `pageSize` items evaluated per call (DynamoDB's 1 MB), the filter applied after that.
 */
const fakeIndex = (grants: GrantRecord[], next: () => number, pageSize: number) => {
  const rank = new Map(grants.map((g) => [g.grantId, next()]))
  const partitions = new Map<string, GrantRecord[]>()
  for (const grant of grants) {
    const key = grant.programSlot as string
    partitions.set(key, [...(partitions.get(key) ?? []), grant])
  }
  for (const items of partitions.values()) {
    items.sort(
      (a, b) =>
        (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
        (rank.get(a.grantId) as number) - (rank.get(b.grantId) as number),
    )
  }
  const calls: QueryCommandInput[] = []
  const query = async (input: QueryCommandInput): Promise<QueryPage> => {
    calls.push(input)
    // Plain checks, not expect(): this runs tens of thousands of times a test.
    if (input.IndexName !== INDEX.grantsByProgramSlot || input.ScanIndexForward !== false) {
      throw new Error(`Not the listing index, newest first: ${JSON.stringify(input)}`)
    }
    const values = input.ExpressionAttributeValues as Record<string, string>
    const below = values[':created']
    const email = values[':email']
    const status = values[':status']
    const all = (partitions.get(values[':key'] as string) ?? []).filter(
      (g) => below === undefined || g.createdAt <= below,
    )
    const from =
      input.ExclusiveStartKey === undefined
        ? 0
        : all.findIndex((g) => g.grantId === input.ExclusiveStartKey?.grantId) + 1
    const evaluated = all.slice(from, from + Math.min(input.Limit ?? pageSize, pageSize))
    const last = evaluated[evaluated.length - 1]
    return {
      Items: evaluated.filter(
        (g) =>
          (email === undefined || g.recipient.email === email) &&
          (status === undefined || g.status === status),
      ),
      ...(last !== undefined && from + evaluated.length < all.length
        ? {
            LastEvaluatedKey: {
              programSlot: last.programSlot,
              createdAt: last.createdAt,
              grantId: last.grantId,
            },
          }
        : {}),
    }
  }
  return { query, calls }
}

const newestFirst = (a: GrantRecord, b: GrantRecord) =>
  (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
  (a.grantId < b.grantId ? 1 : a.grantId > b.grantId ? -1 : 0)

/** Every page from the first, following cursors; each cursor must be past the one before. */
const allPages = async (
  query: (input: QueryCommandInput) => Promise<QueryPage>,
  request: {
    limit: number
    maxReads: number
    recipientEmail?: string
    status?: GrantRecord['status']
  },
) => {
  const pages: GrantRecord[][] = []
  let cursor: string | undefined
  for (;;) {
    const after = cursor === undefined ? undefined : decodeGrantCursor(cursor)
    if (cursor !== undefined && after === undefined) throw new Error(`Unreadable cursor ${cursor}`)
    const page = await listGrantPage(query, {
      table: 'grants',
      index: INDEX.grantsByProgramSlot,
      programId: PROGRAM,
      ...request,
      after,
    })
    if (page.items.length > request.limit)
      throw new Error(`${page.items.length} items, limit ${request.limit}`)
    pages.push(page.items)
    if (page.nextCursor === undefined) return pages
    const position = decodeGrantCursor(page.nextCursor)
    if (after !== undefined && position !== undefined) {
      // Strictly further on, in (createdAt desc, grantId desc).
      const further =
        position.createdAt < after.createdAt ||
        (position.createdAt === after.createdAt && position.grantId < after.grantId)
      if (!further) throw new Error(`Cursor ${page.nextCursor} is not past ${cursor}`)
    }
    if (pages.length >= 5_000) throw new Error('5,000 pages: the cursor does not get further')
    cursor = page.nextCursor
  }
}

describe('listing a program spread over slots', () => {
  it('spreads grants evenly over the slots, the same way every time', () => {
    const counts = new Map<string, number>()
    for (let i = 0; i < 8_000; i++) {
      const slot = grantListSlot(PROGRAM, newId('grant'))
      counts.set(slot, (counts.get(slot) ?? 0) + 1)
    }
    expect([...counts.keys()].sort()).toEqual(
      Array.from({ length: GRANT_LIST_SLOTS }, (_, n) => `${PROGRAM}#${n}`).sort(),
    )
    for (const count of counts.values()) expect(count).toBeGreaterThan(800)
    // A pure function of the ids: what the write path sets is what a backfill computes.
    expect(grantListSlot('prg_x', 'gr_00000000000000000000000000')).toBe(
      grantListSlot('prg_x', 'gr_00000000000000000000000000'),
    )
  })

  it.each([
    { seed: 1, pageSize: 1, limit: 1, maxReads: 1 },
    { seed: 2, pageSize: 1, limit: 7, maxReads: 1 },
    { seed: 3, pageSize: 2, limit: 25, maxReads: 2 },
    { seed: 4, pageSize: 3, limit: 10, maxReads: 8 },
    { seed: 5, pageSize: 1_000, limit: 25, maxReads: 8 },
    { seed: 6, pageSize: 5, limit: 100, maxReads: 1 },
  ])(
    'gives every grant once, in order, whatever the order of ties and the size of pages (%o)',
    async ({ seed, pageSize, limit, maxReads }) => {
      const next = random(seed)
      const grants = grantsFor(next, 400, 40)
      const expected = [...grants].sort(newestFirst).map((g) => g.grantId)
      const { query } = fakeIndex(grants, next, pageSize)

      const pages = await allPages(query, { limit, maxReads })
      expect(pages.flat().map((g) => g.grantId)).toEqual(expected)

      // The recipient filter: DynamoDB drops the others after reading them, so with few reads
      // a page may come back short, even empty, with a cursor; nothing is lost or repeated.
      for (const email of ['ann@example.com', 'rare@example.com']) {
        const filtered = await allPages(query, { limit, maxReads, recipientEmail: email })
        expect(filtered.flat().map((g) => g.grantId)).toEqual(
          expected.filter((id) => grants.find((g) => g.grantId === id)?.recipient.email === email),
        )
      }
      // The status filter (issue 19) is read the same way, alone or with the recipient's.
      const byId = new Map(grants.map((g) => [g.grantId, g]))
      for (const status of ['reserved', 'expired', 'offered'] as const) {
        const filtered = await allPages(query, { limit, maxReads, status })
        expect(filtered.flat().map((g) => g.grantId)).toEqual(
          expected.filter((id) => byId.get(id)?.status === status),
        )
      }
      const both = await allPages(query, {
        limit,
        maxReads,
        status: 'canceled',
        recipientEmail: 'ann@example.com',
      })
      expect(both.flat().map((g) => g.grantId)).toEqual(
        expected.filter((id) => {
          const g = byId.get(id)
          return g?.status === 'canceled' && g.recipient.email === 'ann@example.com'
        }),
      )
    },
  )

  it('comes back short with a cursor when out of reads, and always gets further', async () => {
    const next = random(7)
    // 200 grants in one millisecond: one slot holds about 25 of them, read 1 at a time.
    const grants = grantsFor(next, 200, 1)
    const { query } = fakeIndex(grants, next, 1)
    const pages = await allPages(query, { limit: 10, maxReads: 1 })
    expect(pages.flat().map((g) => g.grantId)).toEqual(
      [...grants].sort(newestFirst).map((g) => g.grantId),
    )
    expect(pages.some((page) => page.length < 10)).toBe(true)
    const rare = await allPages(query, { limit: 5, maxReads: 1, recipientEmail: 'none@x.example' })
    expect(rare.flat()).toEqual([])
  })

  it('reads each slot once for a page when the program is spread evenly', async () => {
    const next = random(8)
    const grants = grantsFor(next, 2_000, 2_000_000)
    const { query, calls } = fakeIndex(grants, next, 10_000)
    const page = await listGrantPage(query, {
      table: 'grants',
      index: INDEX.grantsByProgramSlot,
      programId: PROGRAM,
      limit: 25,
      maxReads: 8,
    })
    expect(page.items.map((g) => g.grantId)).toEqual(
      [...grants]
        .sort(newestFirst)
        .slice(0, 25)
        .map((g) => g.grantId),
    )
    expect(calls).toHaveLength(GRANT_LIST_SLOTS)
    // About 10 grants asked of each slot for a page of 25 (not 26 of each).
    expect(calls.every((c) => (c.Limit as number) < 26)).toBe(true)
  })
})

describe('the slot is never shown', () => {
  it('is in no view of a grant: the API resource, the management view, the CSV line', () => {
    const grant = grantsFor(random(9), 1, 1)[0] as GrantRecord
    expect(grant.programSlot).toMatch(/#\d$/)
    for (const view of [toGrantResource(grant), toManagedGrant(grant)]) {
      expect(JSON.stringify(view)).not.toContain('programSlot')
      expect(JSON.stringify(view)).not.toContain(grant.programSlot)
    }
    expect(grantCsvLine(grant)).not.toContain(grant.programSlot)
  })
})
