import type { ProgramAccess } from '../../functions/core/access-cache'
import {
  CONFLICT_ATTEMPT_MS,
  grantRetryPolicy,
  makeGrantPause,
} from '../../functions/core/grant-tokens/grant-pause'
import {
  authorityOf,
  newGrantRecord,
  replayOf,
  sendAudit,
} from '../../functions/core/grant-tokens/grant-record'
import { pickOther, pickTarget } from '../../functions/core/grant-tokens/shard-picker'
import {
  readTarget,
  type ShardReads,
  sameVersions,
  slotSpread,
  takenFromSeen,
} from '../../functions/core/grant-tokens/slot-spread'
import type { ApiKeyRecord } from '../../functions/domain/api-key'
import {
  IdempotencyKeyReused,
  InvalidApiKey,
  PoolExhausted,
  ProgramNotFound,
  RequestConflict,
  ServiceUnavailable,
} from '../../functions/domain/errors'
import type { GrantSender } from '../../functions/domain/grant'
import type { ProgramRecord } from '../../functions/domain/program'
import { type ShardRecord, shardKey } from '../../functions/domain/program-shards'
import type { Deadline } from '../../functions/runtime/deadline'
import * as RETRY from '../../functions/runtime/retry-policies'

/**
 * The grant path's steps (functions/core/grant-tokens/), each alone on injected sleep, random and
 * clock: the retry pause and its named policies, the shard picker, the slot spread and the reads
 * of the shards, the grant record. makeGrantTokens as a whole: core-grant-tokens.test.ts.
 */

const PROGRAM = 'pg_01hzzzzzzzzzzzzzzzzzzzzzzz'
const noDeadline = (remainingMs = Number.POSITIVE_INFINITY): Deadline => ({
  signal: new AbortController().signal,
  remainingMs: () => remainingMs,
})
/** A random that answers `values` in turn, then the last one again. */
const randoms = (...values: number[]) => {
  let i = 0
  return () => values[Math.min(i++, values.length - 1)] as number
}
const head = (fields: Partial<ProgramRecord> = {}): ProgramRecord => ({
  programId: PROGRAM,
  issuerId: 'is_1',
  mode: 'TEST',
  name: 'Launch',
  status: 'active',
  issued: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...fields,
})
const access = (fields: Partial<ProgramRecord>, seen: [number, number][] = []): ProgramAccess => ({
  head: head(fields),
  seen: new Map(seen),
})

describe('grant pause (RETRY.grantConflict, grantShardConflict, grantThrottled)', () => {
  const rig = (
    options: { remainingMs?: number; maxAttempts?: number; random?: () => number } = {},
  ) => {
    const waits: number[] = []
    const pause = makeGrantPause({
      sleep: async (ms) => {
        waits.push(ms)
      },
      random: options.random ?? (() => 1),
      deadline: noDeadline(options.remainingMs),
      maxAttempts: options.maxAttempts,
    })
    return { waits, pause }
  }

  it('names one policy per failure: a counter conflict, a shard conflict, a throttle', () => {
    expect(grantRetryPolicy('conflict', false)).toBe(RETRY.grantConflict)
    expect(grantRetryPolicy('conflict', true)).toBe(RETRY.grantShardConflict)
    expect(grantRetryPolicy('throttled', false)).toBe(RETRY.grantThrottled)
    expect(grantRetryPolicy('throttled', true)).toBe(RETRY.grantThrottled)
  })

  it('on one counter: 30 ms doubling, 4 waits, then request_conflict on the 5th failure', async () => {
    const { waits, pause } = rig()
    for (let i = 0; i < 4; i++) await pause('conflict')
    await expect(pause('conflict')).rejects.toBeInstanceOf(RequestConflict)
    expect(waits).toEqual([30, 60, 120, 240])
  })

  it('on shards: short waits (5 ms doubling to 30), 9 of them, then request_conflict', async () => {
    const { waits, pause } = rig()
    for (let i = 0; i < 9; i++) await pause('conflict', true)
    await expect(pause('conflict', true)).rejects.toBeInstanceOf(RequestConflict)
    expect(waits).toEqual([5, 10, 20, 30, 30, 30, 30, 30, 30])
  })

  it('a throttle: 50 ms doubling to 1 s, 9 waits, then service_unavailable', async () => {
    const { waits, pause } = rig()
    for (let i = 0; i < 9; i++) await pause('throttled')
    await expect(pause('throttled')).rejects.toBeInstanceOf(ServiceUnavailable)
    expect(waits).toEqual([50, 100, 200, 400, 800, 1_000, 1_000, 1_000, 1_000])
  })

  it('full jitter: each wait is the random share of the delay', async () => {
    const { waits, pause } = rig({ random: randoms(0.5, 0.25) })
    await pause('conflict')
    await pause('throttled')
    expect(waits).toEqual([15, 25])
  })

  it('one count across kinds: after 4 throttles a counter conflict has no try left', async () => {
    const { waits, pause } = rig()
    for (let i = 0; i < 4; i++) await pause('throttled')
    await expect(pause('conflict')).rejects.toBeInstanceOf(RequestConflict)
    expect(waits).toHaveLength(4)
  })

  it('no wait when the deadline leaves no time for another attempt after it', async () => {
    const { waits, pause } = rig({ remainingMs: CONFLICT_ATTEMPT_MS + 29 })
    await expect(pause('conflict')).rejects.toBeInstanceOf(RequestConflict)
    expect(waits).toEqual([])
    const enough = rig({ remainingMs: CONFLICT_ATTEMPT_MS + 30 })
    await enough.pause('conflict')
    expect(enough.waits).toEqual([30])
  })

  it('maxAttempts scales every policy (twice on shards and throttles)', async () => {
    const { waits, pause } = rig({ maxAttempts: 2 })
    await pause('conflict', true)
    await pause('conflict', true)
    await pause('conflict', true)
    await expect(pause('conflict', true)).rejects.toBeInstanceOf(RequestConflict)
    expect(waits).toHaveLength(3)
    const counter = rig({ maxAttempts: 2 })
    await counter.pause('conflict')
    await expect(counter.pause('conflict')).rejects.toBeInstanceOf(RequestConflict)
  })
})

describe('shard picker', () => {
  const pick = (
    current: ProgramAccess,
    amount: number,
    {
      last,
      random = () => 0,
      known,
    }: { last?: number; random?: () => number; known?: number } = {},
  ) => pickTarget({ current, amount, last, random, knownExhausted: () => known })

  it('a program without shards: its head', () => {
    expect(pick(access({ pool: 10 }), 1)).toEqual({ kind: 'head' })
  })

  it('an unlimited program: any shard, not the one that just conflicted', () => {
    const current = access({ shards: 4 })
    expect(pick(current, 9_999, { random: () => 0.99 })).toEqual({
      kind: 'shard',
      shard: 3,
      limited: false,
    })
    expect(pick(current, 1, { last: 0 })).toEqual({ kind: 'shard', shard: 1, limited: false })
  })

  it('a pool known short a moment ago: refused without a write', () => {
    expect(pick(access({ shards: 4, pool: 100 }), 7, { known: 5 })).toEqual({
      refusal: expect.any(PoolExhausted),
    })
  })

  it('the warm path: nothing seen, an amount every slice started with: a random shard', () => {
    expect(pick(access({ shards: 4, pool: 100 }), 25, { random: () => 0.5 })).toEqual({
      kind: 'shard',
      shard: 2,
      limited: true,
    })
  })

  it('only slices that may hold the grant (first size or what was seen), else a read decides', () => {
    // Slices of 102 on 4 shards: 26, 26, 25, 25; shard 0 seen at 3.
    const current = access({ shards: 4, pool: 102 }, [[0, 3]])
    expect(pick(current, 26)).toEqual({ kind: 'shard', shard: 1, limited: true })
    expect(pick(current, 27)).toBeUndefined()
  })

  it('pickOther avoids the last shard when there is another, and keeps it when alone', () => {
    expect(pickOther([2, 5], 2, () => 0)).toBe(5)
    expect(pickOther([2], 2, () => 0)).toBe(2)
    expect(pickOther([1, 2, 3], undefined, () => 0.7)).toBe(3)
  })
})

describe('slot spread', () => {
  it('a slice that holds the grant, not the last conflicted one', () => {
    const seen = new Map([
      [0, 10],
      [1, 10],
      [2, 3],
    ])
    expect(slotSpread(seen, 5, 0, () => 0)).toEqual({ kind: 'shard', shard: 1, limited: true })
  })

  it('room in total but in no one slice: taken in parts that sum to the amount', () => {
    const seen = new Map([
      [0, 4],
      [1, 4],
      [2, 3],
    ])
    const target = slotSpread(seen, 10, undefined, () => 0)
    expect(target.kind).toBe('spread')
    if (target.kind !== 'spread') return
    expect(target.takes.reduce((sum, t) => sum + t.take, 0)).toBe(10)
    for (const { shard, take } of target.takes)
      expect(take).toBeLessThanOrEqual(seen.get(shard) ?? 0)
  })

  it('what a written grant took comes off what was seen (an unlimited shard counts nothing)', () => {
    const seen = new Map([
      [0, 10],
      [1, 2],
    ])
    takenFromSeen(seen, { kind: 'shard', shard: 0, limited: true }, 4)
    takenFromSeen(seen, { kind: 'spread', takes: [{ shard: 1, take: 5 }] }, 5)
    takenFromSeen(seen, { kind: 'shard', shard: 0, limited: false }, 4)
    expect([...seen]).toEqual([
      [0, 6],
      [1, 0],
    ])
  })

  const shard = (i: number, remaining: number, version = 0): ShardRecord => ({
    programId: shardKey(PROGRAM, i),
    shardOf: PROGRAM,
    issued: 0,
    remaining,
    version,
  })

  it('sameVersions: every shard at the version it had, and as many', () => {
    expect(sameVersions([shard(0, 1, 3)], [shard(0, 0, 3)])).toBe(true)
    expect(sameVersions([shard(0, 1, 3)], [shard(0, 1, 4)])).toBe(false)
    expect(sameVersions([shard(0, 1)], [shard(0, 1), shard(1, 1)])).toBe(false)
  })

  /** readTarget over scripted reads; learnShards as AccessCache does it (seen from the read). */
  const reads = (answers: ShardRecord[][], current: ProgramAccess, reloaded?: ProgramAccess) => {
    let readsCounted = 0
    const run: ShardReads = {
      programId: PROGRAM,
      amount: 0,
      last: undefined,
      random: () => 0,
      signal: undefined,
      store: { readShards: async () => answers.shift() ?? [] },
      access: {
        learnShards: (into, found) => {
          into.seen = new Map(found.map((s, i) => [i, s.remaining ?? 0]))
          return found.reduce((sum, s) => sum + (s.remaining ?? 0), 0)
        },
        knownExhausted: () => undefined,
      },
      nextRead: () => {
        readsCounted++
      },
      reload: async () => reloaded ?? current,
    }
    return { run, count: () => readsCounted }
  }

  it('a read whose total is short, confirmed by a second read at the same versions: refused', async () => {
    const current = access({ shards: 2, pool: 20 })
    const { run, count } = reads(
      [
        [shard(0, 1), shard(1, 2)],
        [shard(0, 1), shard(1, 2)],
      ],
      current,
    )
    run.amount = 5
    await expect(readTarget(run, current)).resolves.toEqual({ refusal: expect.any(PoolExhausted) })
    expect(count()).toBe(2)
  })

  it('a short total that moved between reads (a return): read again, and the grant fits', async () => {
    const current = access({ shards: 2, pool: 20 })
    const { run, count } = reads(
      [
        [shard(0, 1), shard(1, 2)],
        [shard(0, 6, 1), shard(1, 2)],
      ],
      current,
    )
    run.amount = 5
    await expect(readTarget(run, current)).resolves.toEqual({
      kind: 'shard',
      shard: 0,
      limited: true,
    })
    expect(count()).toBe(2)
  })

  it('a shard count that changed: the head read again, and the pick made on it', async () => {
    const current = access({ shards: 2, pool: 20 })
    const reloaded = access({ shards: 4, pool: 20 })
    const { run } = reads([[shard(0, 10)]], current, reloaded)
    run.amount = 1
    await expect(readTarget(run, current)).resolves.toEqual({
      kind: 'shard',
      shard: 0,
      limited: true,
    })
  })
})

describe('grant record', () => {
  const key: ApiKeyRecord = {
    keyHash: 'h',
    keyId: 'key_1',
    issuerId: 'is_1',
    mode: 'TEST',
    status: 'active',
    createdAt: '2026-01-01T00:00:00.000Z',
    prefix: 'vs_test_',
    last4: 'abcd',
  }
  const sentBy: GrantSender = { sub: 'sub-1', email: 'admin@example.com' }

  it('a key: valid for the mode now, else invalid_api_key', () => {
    const checked = { key, program: access({}) }
    expect(authorityOf(checked, PROGRAM, { mode: 'TEST' }, undefined, 0)).toEqual({
      kind: 'key',
      key: { keyHash: 'h', keyId: 'key_1', issuerId: 'is_1', mode: 'TEST' },
    })
    expect(() => authorityOf(checked, PROGRAM, { mode: 'LIVE' }, undefined, 0)).toThrow(
      InvalidApiKey,
    )
  })

  it("a member: their issuer's program only, in its mode unless told", () => {
    const checked = { key: undefined, program: access({}) }
    expect(authorityOf(checked, PROGRAM, undefined, { issuerId: 'is_1', sentBy }, 0)).toEqual({
      kind: 'issuer',
      issuerId: 'is_1',
      mode: 'TEST',
    })
    expect(() => authorityOf(checked, PROGRAM, undefined, { issuerId: 'is_2', sentBy }, 0)).toThrow(
      ProgramNotFound,
    )
  })

  const ask = { recipient: { email: 'ann@example.com', name: '' }, reason: 'Bonus', amount: 3 }
  const authority = { kind: 'issuer' as const, issuerId: 'is_1', mode: 'TEST' as const }

  it('the grant as written: no name for "", an idempotent id, the offer window from createdAt', () => {
    const at = Date.parse('2026-03-01T00:00:00.000Z')
    const grant = newGrantRecord({
      ask,
      programId: PROGRAM,
      authority,
      idempotencyKey: 'k-1',
      member: { issuerId: 'is_1', sentBy, batch: { batchId: 'b', row: 2 } },
      offerDays: 1,
      createdAt: at,
    })
    expect(grant).toMatchObject({
      programId: PROGRAM,
      issuerId: 'is_1',
      mode: 'TEST',
      recipient: { email: 'ann@example.com' },
      status: 'reserved',
      createdAt: '2026-03-01T00:00:00.000Z',
      idempotencyKey: 'k-1',
      sentBy,
      batch: { batchId: 'b', row: 2 },
      recipientKey: 'ann@example.com',
    })
    expect(grant.recipient).not.toHaveProperty('name')
    const again = newGrantRecord({
      ask,
      programId: PROGRAM,
      authority,
      idempotencyKey: 'k-1',
      member: undefined,
      offerDays: 1,
      createdAt: at + 5,
    })
    expect(again.grantId).toBe(grant.grantId)
    expect(again.requestHash).toBe(grant.requestHash)
  })

  it('a replay: the same request answers the grant made, another request is refused', () => {
    const grant = newGrantRecord({
      ask,
      programId: PROGRAM,
      authority,
      idempotencyKey: 'k',
      member: undefined,
      offerDays: undefined,
      createdAt: 0,
    })
    expect(replayOf(grant, { ...grant })).toEqual({ grant, replayed: true })
    expect(() => replayOf({ ...grant, requestHash: 'other' }, grant)).toThrow(IdempotencyKeyReused)
  })

  it("an audit entry for a member's send with audit, none otherwise", () => {
    const grant = newGrantRecord({
      ask,
      programId: PROGRAM,
      authority,
      idempotencyKey: undefined,
      member: undefined,
      offerDays: undefined,
      createdAt: 0,
    })
    expect(sendAudit(grant, undefined, 0)).toBeUndefined()
    expect(sendAudit(grant, { issuerId: 'is_1', sentBy }, 0)).toBeUndefined()
    expect(
      sendAudit(grant, { issuerId: 'is_1', sentBy, audit: { requestId: 'r' } }, 0),
    ).toMatchObject({
      action: 'grant.send',
    })
  })
})
