import fc from 'fast-check'
import {
  poolRemaining,
  poolSlices,
  sliceOf,
  spreadTakes,
} from '../../functions/domain/program-shards'
import { seededRandom } from '../support/fault-injector'

/** How a grant no one slice holds is split over slices (functions/domain/program-shards.ts). */
describe('spreadTakes', () => {
  it('takes exactly the amount, from distinct slices, none past what it holds, or says it cannot', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 5_000 }), { minLength: 1, maxLength: 96 }),
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer(),
        (slices, amount, seed) => {
          const remaining = new Map(slices.map((left, shard) => [shard, left]))
          const takes = spreadTakes(remaining, amount, seededRandom(seed))
          const total = slices.reduce((a, b) => a + b, 0)
          if (total < amount) return takes === undefined
          if (takes === undefined) return false
          const shards = takes.map((t) => t.shard)
          return (
            takes.reduce((sum, t) => sum + t.take, 0) === amount &&
            new Set(shards).size === shards.length &&
            takes.every((t) => t.take > 0 && t.take <= (remaining.get(t.shard) ?? 0))
          )
        },
      ),
    )
  })

  it('uses as few slices as whole ones allow when they are equal: 200,000 of 64 slices of 15,625 is 13', () => {
    const remaining = new Map(poolSlices(1_000_000, 64).map((left, shard) => [shard, left]))
    const takes = spreadTakes(remaining, 200_000, seededRandom(1)) ?? []
    expect(takes).toHaveLength(13)
    expect(takes.filter((t) => t.take === 15_625)).toHaveLength(12)
  })

  it('draws fuller slices first, and different ones for concurrent grants', () => {
    // One full slice among thin ones: drawn first in proportion to what it holds, 5,000 / 5,630.
    const remaining = new Map([
      ...Array.from({ length: 63 }, (_, i) => [i, 10] as const),
      [63, 5_000],
    ])
    const first = Array.from(
      { length: 200 },
      (_, seed) => spreadTakes(remaining, 600, seededRandom(seed))?.[0]?.shard,
    )
    expect(first.filter((shard) => shard === 63).length).toBeGreaterThan(160)
    // Equal slices: twenty grants do not all reach for the same one.
    const equal = new Map(Array.from({ length: 64 }, (_, i) => [i, 100]))
    const picks = new Set(
      Array.from(
        { length: 20 },
        (_, seed) => spreadTakes(equal, 150, seededRandom(seed))?.[0]?.shard,
      ),
    )
    expect(picks.size).toBeGreaterThan(10)
  })
})

describe('sliceOf', () => {
  it('matches poolSlices and adds up to the pool', () => {
    fc.assert(
      fc.property(fc.nat({ max: 10_000_000 }), fc.integer({ min: 1, max: 96 }), (pool, shards) => {
        const slices = poolSlices(pool, shards)
        return (
          slices.reduce((a, b) => a + b, 0) === pool &&
          slices.every((slice, i) => slice === sliceOf(pool, shards, i))
        )
      }),
    )
  })
})

/** The one rule every door uses for what a pool has left. */
describe('poolRemaining', () => {
  it('is null without a pool, the pool less what was issued, and never below 0', () => {
    expect(poolRemaining(undefined, 5)).toBeNull()
    expect(poolRemaining(10, undefined)).toBe(10)
    expect(poolRemaining(10, 3)).toBe(7)
    expect(poolRemaining(10, 10)).toBe(0)
    expect(poolRemaining(10, 12)).toBe(0)
  })
})
