import { type Backoff, retrying } from '../../functions/runtime/retry'

/**
 * runtime/retry.ts `retrying` on an injected clock: the attempts a count allows, and the attempts
 * a deadline (`until`) allows, whichever ends first; waits that would end past the deadline are
 * not started, and an error it should not retry is thrown at once.
 */
const backoff: Backoff = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 'full' }

/** A clock the waits move, and a send that fails `failures` times before it answers. */
const rig = (failures: number) => {
  let now = 0
  const waits: number[] = []
  let sends = 0
  return {
    waits,
    sends: () => sends,
    deps: {
      now: () => now,
      sleep: async (ms: number) => {
        waits.push(ms)
        now += ms
      },
      // The longest wait the backoff allows: the deadline is met or missed by the delay itself.
      random: () => 1,
    },
    send: async () => {
      sends++
      if (sends <= failures) throw new Error(`busy ${sends}`)
      return 'answer'
    },
  }
}

describe('retrying', () => {
  it('sends again after 100, 200, 400 ms until an answer', async () => {
    const r = rig(3)
    await expect(retrying(r.send, { backoff, again: () => true, ...r.deps })).resolves.toBe(
      'answer',
    )
    expect(r.waits).toEqual([100, 200, 400])
  })

  it('stops at the count: the last error, as thrown', async () => {
    const r = rig(10)
    await expect(retrying(r.send, { backoff, again: () => true, ...r.deps })).rejects.toThrow(
      'busy 5',
    )
    expect(r.sends()).toBe(5)
  })

  it('stops before a wait that would end past `until`, however many attempts are left', async () => {
    const r = rig(10)
    // 100 + 200 = 300 ms of waits fit before 650; the next (400) would end at 700.
    await expect(
      retrying(r.send, {
        backoff: { ...backoff, attempts: Number.POSITIVE_INFINITY },
        again: () => true,
        until: 650,
        ...r.deps,
      }),
    ).rejects.toThrow('busy 3')
    expect(r.waits).toEqual([100, 200])
  })

  it('answers what `exhausted` says past the deadline, and throws what `again` refuses at once', async () => {
    const r = rig(10)
    await expect(
      retrying(r.send, {
        backoff,
        again: () => true,
        until: 50,
        exhausted: (error, attempts) => `gave up after ${attempts}: ${(error as Error).message}`,
        ...r.deps,
      }),
    ).resolves.toBe('gave up after 1: busy 1')
    const s = rig(10)
    await expect(retrying(s.send, { backoff, again: () => false, ...s.deps })).rejects.toThrow(
      'busy 1',
    )
    expect(s.waits).toEqual([])
  })
})
