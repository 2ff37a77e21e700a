import { figureChangeOf } from '../../functions/core/grant-figures'
import type { FigureChange } from '../../functions/domain/figures'
import { DynamoDbFiguresStore } from '../../functions/stores/figures.dynamodb'
import type { HolderFigure, HoldersPage } from '../../functions/stores/figures.store'
import {
  figuresOfGrants,
  grantLives,
  streamOrder,
  tableChangeOfWrite,
} from '../support/figures-grants'
import { config, documentClient, wallClock } from '../support/runtime'

/**
 * The figures store (functions/stores/figures.dynamodb.ts) on DynamoDB Local: records applied in
 * batches, some delivered again (the same batch twice, overlapping batches, one batch twice at
 * once), give the holders and days a scan of the final grants gives, each change counted once.
 */

const store = new DynamoDbFiguresStore(documentClient, config.tables, { clock: wallClock })
const programId = `prog_figs${Date.now().toString(36)}`
const lives = grantLives(programId, 400, { days: 10, seed: 7 })
const changes = streamOrder(lives).map((w) => figureChangeOf(tableChangeOfWrite(w)) as FigureChange)
const expected = figuresOfGrants(lives.map((l) => l.final))

const allHolders = async (limit: number) => {
  const items: HolderFigure[] = []
  let cursor: string | undefined
  do {
    const page = (await store.holdersPage(programId, {
      limit,
      ...(cursor ? { cursor } : {}),
    })) as HoldersPage
    items.push(...page.items)
    cursor = page.nextCursor
  } while (cursor !== undefined)
  return items
}

beforeAll(async () => {
  const batch = 50
  for (let from = 0; from < changes.length; from += batch) {
    const slice = changes.slice(from, from + batch)
    expect(await store.applyChanges(slice)).toEqual(new Set())
    // Every third batch again, and an overlap of the previous batch's half with this one's.
    if ((from / batch) % 3 === 0) expect(await store.applyChanges(slice)).toEqual(new Set())
    if (from > 0) {
      const overlap = changes.slice(from - batch / 2, from + batch / 2)
      expect(await store.applyChanges(overlap)).toEqual(new Set())
    }
  }
  // One batch delivered twice at once: the loser's markers fail, it reads them again, adds nothing.
  const again = changes.slice(100, 150)
  expect(await Promise.all([store.applyChanges(again), store.applyChanges(again)])).toEqual([
    new Set(),
    new Set(),
  ])
}, 120_000)

test('every holder, on every page, equals the scan’s; pages go by accepted shares, highest first', async () => {
  const holders = await allHolders(7)
  const byAddress = (a: HolderFigure, b: HolderFigure) => (a.email < b.email ? -1 : 1)
  expect([...holders].sort(byAddress)).toEqual([...expected.holders].sort(byAddress))
  const accepted = holders.map((h) => h.accepted)
  expect(accepted).toEqual([...accepted].sort((a, b) => b - a))
  expect(holders.length).toBeGreaterThan(100)
})

test('the first page is the highest accepted holders, ties by address', async () => {
  const page = (await store.holdersPage(programId, { limit: 5 })) as HoldersPage
  expect(page.items).toEqual(expected.holders.slice(0, 5))
  expect(page.nextCursor).toEqual(expect.any(String))
})

test('daily figures equal the scan’s, days ascending, a sub-range only its days', async () => {
  const first = expected.daily[0]?.date as string
  const last = expected.daily.at(-1)?.date as string
  expect(await store.dailyFigures(programId, first, last)).toEqual(expected.daily)
  const middle = expected.daily.slice(3, 6)
  expect(
    await store.dailyFigures(programId, middle[0]?.date as string, middle[2]?.date as string),
  ).toEqual(middle)
  expect(await store.dailyFigures(programId, '2020-01-01', '2020-12-31')).toEqual([])
  expect(await store.dailyFigures(programId, last, first)).toEqual([])
})

test('a cursor this store did not make: invalid_cursor, nothing read', async () => {
  expect(await store.holdersPage(programId, { limit: 5, cursor: 'bm90LWEtY3Vyc29y' })).toBe(
    'invalid_cursor',
  )
})

test('markers: a final grant’s purges two days on, an open one’s never', async () => {
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb')
  const marker = async (grantId: string) =>
    (
      await documentClient.send(
        new GetCommand({
          TableName: config.tables.figures,
          Key: { pk: `applied#${grantId}`, sk: '-' },
        }),
      )
    ).Item
  const open = lives.find((l) => l.final.status === 'reserved' && !l.final.history)
  const final = lives.find((l) => l.final.status === 'accepted')
  expect(await marker(open?.final.grantId as string)).toEqual(
    expect.not.objectContaining({ purgeAt: expect.anything() }),
  )
  const done = await marker(final?.final.grantId as string)
  expect(done?.version).toBe(final?.final.history?.length)
  expect(done?.purgeAt).toBeGreaterThan(Math.floor(wallClock.now() / 1000) + 2 * 86_400 - 300)
})
