import { LOST_RACE, optimisticUpdate } from '../../functions/runtime/optimistic-update'
import * as RETRY from '../../functions/runtime/retry-policies'

/**
 * runtime/optimistic-update.ts on an injected sleep and random: a try that loses its race reads
 * again after the policy's wait and decides on what it read; an answer ends it at once; past the
 * policy's tries, `exhausted` answers with the state last read; an error is not a lost race.
 */
const rig = (wins: (state: number, tries: number) => boolean) => {
  const waits: number[] = []
  const decidedOn: number[] = []
  let reads = 0
  return {
    waits,
    decidedOn,
    reads: () => reads,
    run: () =>
      optimisticUpdate(100, {
        policy: RETRY.lostRace,
        sleep: async (ms: number) => {
          waits.push(ms)
        },
        random: () => 1,
        reread: async (state) => {
          reads++
          return state + 1
        },
        attempt: async (state, tries) => {
          decidedOn.push(state)
          return wins(state, tries) ? `written on ${state}` : LOST_RACE
        },
        exhausted: (state) => `gave up on ${state}`,
      }),
  }
}

describe('optimisticUpdate', () => {
  it('writes on the first try when nobody else changed the state: no wait, no read', async () => {
    const r = rig(() => true)
    await expect(r.run()).resolves.toBe('written on 100')
    expect({ waits: r.waits, reads: r.reads() }).toEqual({ waits: [], reads: 0 })
  })

  it('after each lost race: the wait (10, 20, 40 ms), a read, and a decision on what was read', async () => {
    const r = rig((_, tries) => tries === 3)
    await expect(r.run()).resolves.toBe('written on 103')
    expect(r.waits).toEqual([10, 20, 40])
    expect(r.decidedOn).toEqual([100, 101, 102, 103])
    expect(r.reads()).toBe(3)
  })

  it('past the policy tries (8): exhausted, with the state last read; waits capped at 160 ms', async () => {
    const r = rig(() => false)
    await expect(r.run()).resolves.toBe('gave up on 107')
    expect(r.decidedOn).toHaveLength(RETRY.lostRace.attempts)
    expect(r.waits).toEqual([10, 20, 40, 80, 160, 160, 160])
  })

  it('an error thrown by a try is not a lost race: thrown at once, nothing read again', async () => {
    let reads = 0
    await expect(
      optimisticUpdate(1, {
        policy: RETRY.lostRace,
        sleep: async () => {},
        reread: async (s) => {
          reads++
          return s
        },
        attempt: async () => {
          throw new Error('refused')
        },
        exhausted: () => 'never',
      }),
    ).rejects.toThrow('refused')
    expect(reads).toBe(0)
  })
})
