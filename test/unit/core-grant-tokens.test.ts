import { AccessCache, CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import {
  type DomainError,
  IdempotencyKeyReused,
  InvalidApiKey,
  InvalidIdempotencyKey,
  MissingApiKey,
  ModeMismatch,
  PoolExhausted,
  ProgramInactive,
  ProgramNotFound,
  RequestConflict,
  ServiceUnavailable,
  ValidationFailed,
} from '../../functions/domain/errors'
import { newId } from '../../functions/domain/ids'
import type { ProgramRecord } from '../../functions/domain/program'
import type { Deadline } from '../../functions/runtime/deadline'
import type { GrantTarget } from '../../functions/stores/grants.store'
import { apiKeyFor, FakeGrantStore } from '../support/fake-grant-store'
import { seededRandom } from '../support/fault-injector'

/**
 * The grant use case (functions/core/grant-tokens.ts) in process: its AccessCache over a
 * GrantStore in memory (test/support/fake-grant-store.ts, the DynamoDB store's conditions), an
 * injected clock, a sleep that only records its waits, and a seeded random. The contract as
 * behaviour: who may grant, on which program, how much, what a retry with the same
 * Idempotency-Key answers, and how conflicts and throttles (which DynamoDB Local never shows) are
 * retried; every refusal writes nothing. That the fake answers as the DynamoDB store does:
 * test/reliability/fake-grant-store.test.ts. The same use case over HTTP and DynamoDB Local:
 * test/http/grant-tokens.http.test.ts and test/reliability/shards.test.ts.
 */

const START = Date.parse('2026-03-01T12:00:00.000Z')
const ISSUER = newId('issuer')
const OTHER = newId('issuer')
const ANN = { sub: 'sub-ann', email: 'ann@issuer.example' }

type Setup = {
  random?: () => number
  maxAttempts?: number
}

const setup = ({ random = seededRandom(7), maxAttempts }: Setup = {}) => {
  const store = new FakeGrantStore()
  let now = START
  const waits: number[] = []
  const clock = () => now
  const access = new AccessCache(store, { now: clock })
  const grantTokens = makeGrantTokens({
    store,
    access,
    clock,
    sleep: async (ms) => {
      waits.push(ms)
    },
    random,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
  })
  const key = apiKeyFor(ISSUER, 'TEST')
  store.addKey(key.record)
  /** A program of ISSUER in TEST mode, active unless told. */
  const program = (
    options: { shards?: number; pool?: number } = {},
    head: Partial<Pick<ProgramRecord, 'issuerId' | 'mode' | 'status'>> = {},
  ) =>
    store.addProgram(
      { issuerId: ISSUER, mode: 'TEST', name: 'Launch', status: 'active', ...head },
      options,
    ).programId
  /** A grant by the API key (or `apiKey`), of `amount` to Ann. */
  const send = (
    programId: string | undefined,
    amount = 10,
    options: { apiKey?: string | undefined; idempotencyKey?: string; body?: unknown } = {},
  ) =>
    grantTokens({
      apiKey: 'apiKey' in options ? options.apiKey : key.secret,
      programId,
      idempotencyKey: options.idempotencyKey,
      body: options.body ?? body(amount),
    })
  return {
    store,
    grantTokens,
    send,
    program,
    key,
    waits,
    advance: (ms: number) => {
      now += ms
    },
  }
}

const body = (amount: number, email = 'Ann@Example.com') => ({
  recipient: { email, name: 'Ann' },
  reason: 'Launch bonus',
  amount,
})

/** What a rejected promise was rejected with (a resolved one fails the test). */
const refusal = (work: Promise<unknown>): Promise<DomainError> =>
  work.then(
    (result) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(result)}`)
    },
    (error: DomainError) => error,
  )

/** The refusal is of `type`, with its `code` (and `detail` when given), and wrote nothing. */
const expectRefused = async (
  store: FakeGrantStore,
  work: Promise<unknown>,
  type: abstract new (...args: never[]) => DomainError,
  code: string,
  detail?: string,
) => {
  const before = store.snapshot()
  const error = await refusal(work)
  expect(error).toBeInstanceOf(type)
  expect(error.code).toBe(code)
  if (detail !== undefined) expect(error.detail).toBe(detail)
  expect(store.snapshot()).toEqual(before)
  return error
}

/** The pool's invariant: pool = head base + Σ shard.issued + Σ shard.remaining, none below 0. */
const expectExactPool = (store: FakeGrantStore, programId: string) => {
  const head = store.head(programId) as ProgramRecord
  const shards = store.shards(programId)
  for (const shard of shards) expect(shard.remaining).toBeGreaterThanOrEqual(0)
  const issued = head.issued + shards.reduce((sum, s) => sum + s.issued, 0)
  const left = shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0)
  expect(issued + left).toBe(head.pool)
  const granted = [...store.state.grants.values()]
    .filter((g) => g.programId === programId)
    .reduce((sum, g) => sum + g.amount, 0)
  expect(granted).toBe(issued)
  return { issued, left }
}

const writes = (store: FakeGrantStore) =>
  store.calls.filter((c) => c.method === 'createGrant').map((c) => c.detail) as {
    target: GrantTarget
    amount: number
  }[]

describe('a grant', () => {
  it('is written once with the key, the clock and the normalised recipient; one read, one write', async () => {
    const { store, send, program, key } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    const { grant, replayed } = await send(programId, 30)
    expect(replayed).toBe(false)
    expect(grant).toMatchObject({
      grantId: expect.stringMatching(/^gr_[0-9a-z]{26}$/),
      programId,
      issuerId: ISSUER,
      mode: 'TEST',
      keyId: key.record.keyId,
      recipient: { email: 'ann@example.com', name: 'Ann' },
      reason: 'Launch bonus',
      amount: 30,
      status: 'reserved',
      createdAt: new Date(START).toISOString(),
    })
    expect(grant.sentBy).toBeUndefined()
    expect(store.state.grants.get(grant.grantId)).toEqual(grant)
    expect(store.calls.map((c) => c.method)).toEqual(['findAccess', 'createGrant'])
    expect(writes(store)[0]?.target).toMatchObject({ kind: 'shard', limited: true })
    expect(expectExactPool(store, programId)).toEqual({ issued: 30, left: 970 })
    expect(store.state.audit).toEqual([])
  })

  it('keeps the warm path at one write: a second grant within the bound reads nothing', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    await send(programId, 1)
    advance(CHECK_BOUND_MS - 1)
    await send(programId, 1)
    expect(store.calls.map((c) => c.method)).toEqual(['findAccess', 'createGrant', 'createGrant'])
    advance(1)
    await send(programId, 1)
    expect(store.count('findAccess')).toBe(2)
  })

  it('refuses a body that breaks the contract with validation_failed, before any read', async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    const error = await expectRefused(
      store,
      send(programId, 0, { body: { recipient: { email: 'nope' }, amount: 0, extra: 1 } }),
      ValidationFailed,
      'validation_failed',
    )
    expect(error.errors?.map((e) => e.field)).toEqual(
      expect.arrayContaining(['recipient.email', 'reason', 'amount']),
    )
    expect(store.calls).toEqual([])
  })
})

describe('the API key', () => {
  it('absent is missing_api_key and malformed is invalid_api_key, both without a read', async () => {
    const { store, send, program, key } = setup()
    const programId = program({ pool: 100, shards: 1 })
    await expectRefused(
      store,
      send(programId, 1, { apiKey: undefined }),
      MissingApiKey,
      'missing_api_key',
    )
    await expectRefused(store, send(programId, 1, { apiKey: '' }), MissingApiKey, 'missing_api_key')
    // One character changed: the checksum no longer matches.
    const typo = `${key.secret.slice(0, -1)}${key.secret.endsWith('A') ? 'B' : 'A'}`
    await expectRefused(
      store,
      send(programId, 1, { apiKey: typo }),
      InvalidApiKey,
      'invalid_api_key',
    )
    await expectRefused(
      store,
      send(programId, 1, { apiKey: 'vs_test_short' }),
      InvalidApiKey,
      'invalid_api_key',
    )
    expect(store.calls).toEqual([])
  })

  it.each([
    ['unknown', () => apiKeyFor(ISSUER, 'TEST'), false],
    ['revoked', () => apiKeyFor(ISSUER, 'TEST', { status: 'revoked' }), true],
    ['expired', () => apiKeyFor(ISSUER, 'TEST', { expiresAt: START }), true],
    [
      'stored as another mode',
      () => {
        const key = apiKeyFor(ISSUER, 'TEST')
        return { ...key, record: { ...key.record, mode: 'LIVE' as const } }
      },
      true,
    ],
  ])(
    '%s is invalid_api_key with the same detail, and nothing is written',
    async (_, make, stored) => {
      const { store, send, program } = setup()
      const programId = program({ pool: 100, shards: 1 })
      const key = make()
      if (stored) store.addKey(key.record)
      await expectRefused(
        store,
        send(programId, 1, { apiKey: key.secret }),
        InvalidApiKey,
        'invalid_api_key',
        new InvalidApiKey().detail,
      )
      expect(store.count('createGrant')).toBe(0)
    },
  )

  it('works until the millisecond its expiresAt comes, cached or not', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 100, shards: 1 })
    const key = apiKeyFor(ISSUER, 'TEST', { expiresAt: START + 500 })
    store.addKey(key.record)
    advance(499)
    await send(programId, 1, { apiKey: key.secret })
    advance(1)
    await expectRefused(
      store,
      send(programId, 1, { apiKey: key.secret }),
      InvalidApiKey,
      'invalid_api_key',
    )
    // The key's record was cached by the first grant: the expiry is still exact.
    expect(store.count('findAccess')).toBe(1)
  })

  it('revoked, is refused by every grant from CHECK_BOUND_MS after the revocation', async () => {
    const { store, send, program, advance, key } = setup()
    const programId = program({ pool: 100, shards: 1 })
    await send(programId, 1)
    store.state.keys.set(key.record.keyHash, { ...key.record, status: 'revoked' })
    advance(CHECK_BOUND_MS - 1)
    // Within the bound the cached check stands (docs/decisions/access-cache.md).
    await send(programId, 1)
    advance(1)
    await expectRefused(store, send(programId, 1), InvalidApiKey, 'invalid_api_key')
  })
})

describe('the program', () => {
  it('with an id we could never have issued is program_not_found, before any read', async () => {
    const { store, send } = setup()
    const valid = newId('program')
    for (const id of [
      undefined,
      '',
      'prg_1',
      `prg_${valid.slice(4).toUpperCase()}`,
      `${valid}x`,
      `${valid}#shard-0`,
      newId('grant'),
    ]) {
      await expectRefused(store, send(id), ProgramNotFound, 'program_not_found')
    }
    expect(store.calls).toEqual([])
  })

  it('of another issuer answers exactly as a program that does not exist', async () => {
    const { store, send, program } = setup()
    const missing = newId('program')
    const theirs = program({ pool: 100, shards: 1 }, { issuerId: OTHER })
    const unknown = await expectRefused(store, send(missing), ProgramNotFound, 'program_not_found')
    const other = await expectRefused(store, send(theirs), ProgramNotFound, 'program_not_found')
    expect(other.detail.replace(theirs, '<id>')).toBe(unknown.detail.replace(missing, '<id>'))
    expect(other.title).toBe(unknown.title)
    expect(store.count('createGrant')).toBe(0)
  })

  it('of the other mode is mode_mismatch, naming both modes', async () => {
    const { store, send, program } = setup()
    const live = program({ pool: 100, shards: 1 }, { mode: 'LIVE' })
    await expectRefused(
      store,
      send(live),
      ModeMismatch,
      'mode_mismatch',
      'This program is in LIVE mode but the request used a TEST key. Use a LIVE key (vs_live_...) for this program.',
    )
  })

  it.each(['paused', 'closed'] as const)('%s is program_inactive', async (status) => {
    const { store, send, program } = setup()
    const sharded = program({ pool: 100, shards: 1 }, { status })
    const single = program({ pool: 100 }, { status })
    for (const programId of [sharded, single]) {
      await expectRefused(
        store,
        send(programId),
        ProgramInactive,
        'program_inactive',
        `The program is ${status} and does not accept grants.`,
      )
    }
    expect(store.count('createGrant')).toBe(0)
  })

  it("without shards, paused after the cache read, is refused by the write's own condition", async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 100 })
    await send(programId, 1)
    const head = store.head(programId) as ProgramRecord
    store.state.programs.set(programId, { ...head, status: 'paused' })
    await expectRefused(store, send(programId, 1), ProgramInactive, 'program_inactive')
    expect(writes(store).map((w) => w.target.kind)).toEqual(['head', 'head'])
  })

  it('with shards, paused, is refused from CHECK_BOUND_MS after the pause', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 100, shards: 1 })
    await send(programId, 1)
    store.state.programs.set(programId, {
      ...(store.head(programId) as ProgramRecord),
      status: 'paused',
    })
    advance(CHECK_BOUND_MS - 1)
    await send(programId, 1)
    advance(1)
    await expectRefused(store, send(programId, 1), ProgramInactive, 'program_inactive')
  })
})

describe('the pool', () => {
  it('refuses a grant larger than what is left with pool_exhausted, naming what is left', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    await send(programId, 700)
    await expectRefused(
      store,
      send(programId, 400),
      PoolExhausted,
      'pool_exhausted',
      'The program has 300 shares left in its pool; this grant asks for 400.',
    )
    await send(programId, 300)
    await expectRefused(
      store,
      send(programId, 1),
      PoolExhausted,
      'pool_exhausted',
      'The program has 0 shares left in its pool; this grant asks for 1.',
    )
    expect(expectExactPool(store, programId)).toEqual({ issued: 1_000, left: 0 })
    // Known short a moment ago: refused again without a read, until the bound passes (shares
    // returned meanwhile are seen then).
    const calls = store.calls.length
    advance(CHECK_BOUND_MS - 1)
    await expectRefused(store, send(programId, 1), PoolExhausted, 'pool_exhausted')
    expect(store.calls.length).toBe(calls)
    advance(1)
    await expectRefused(store, send(programId, 1), PoolExhausted, 'pool_exhausted')
    // Then read, and read again to prove the total short (the double collect: versions unchanged).
    expect(store.calls.slice(calls).map((c) => c.method)).toEqual([
      'findAccess',
      'readShards',
      'readShards',
    ])
  })

  it('without shards (one counter), refuses past the pool by the condition of the write', async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 5 })
    await send(programId, 4)
    await expectRefused(
      store,
      send(programId, 2),
      PoolExhausted,
      'pool_exhausted',
      'The program has 1 shares left in its pool; this grant asks for 2.',
    )
    expect(store.head(programId)).toMatchObject({ issued: 4, remaining: 1 })
    expect(await store.findProgram(programId)).toMatchObject({ issued: 4, pool: 5 })
  })

  it('takes a grant larger than any slice in parts from several shards, in one write, exactly', async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    const { grant } = await send(programId, 600)
    const [write] = writes(store)
    expect(write?.target.kind).toBe('spread')
    const takes = write?.target.kind === 'spread' ? write.target.takes : []
    expect(takes.length).toBeGreaterThanOrEqual(3)
    expect(takes.reduce((sum, t) => sum + t.take, 0)).toBe(600)
    expect(new Set(takes.map((t) => t.shard)).size).toBe(takes.length)
    expect(store.count('createGrant')).toBe(1)
    expect(store.state.grants.get(grant.grantId)?.amount).toBe(600)
    expect(expectExactPool(store, programId)).toEqual({ issued: 600, left: 400 })
    expect(await store.findProgram(programId)).toMatchObject({ issued: 600, remaining: 400 })
    // What is left is spread over several slices too: it can all be granted at once.
    await send(programId, 400)
    expect(expectExactPool(store, programId)).toEqual({ issued: 1_000, left: 0 })
  })

  it('is used up exactly by 12 instances granting 1 to 150 at once, never past it', async () => {
    const store = new FakeGrantStore()
    const programId = store.addProgram(
      { issuerId: ISSUER, mode: 'TEST', name: 'Busy', status: 'active' },
      { pool: 5_000, shards: 8 },
    ).programId
    const key = apiKeyFor(ISSUER, 'TEST')
    store.addKey(key.record)
    const amounts = seededRandom(11)
    let refused = 0
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        // One Lambda instance: its own cache, its own random.
        const instance = makeGrantTokens({
          store,
          access: new AccessCache(store, { now: () => START }),
          clock: () => START,
          sleep: async () => {},
          random: seededRandom(100 + i),
        })
        // 5,000 shares in grants of 75 on average: far fewer tries than this, unless the pool
        // is overdrawn (then fail, rather than loop for ever).
        for (let tries = 0; tries < 500; tries++) {
          const amount = 1 + Math.floor(amounts() * 150)
          try {
            await instance({
              apiKey: key.secret,
              programId,
              idempotencyKey: undefined,
              body: body(amount),
            })
          } catch (error) {
            expect(error).toBeInstanceOf(PoolExhausted)
            refused++
            // The last few shares go to grants small enough to fit; then stop.
            if (expectExactPool(store, programId).left === 0 || refused > 40) return
          }
        }
        throw new Error('500 grants by one instance, and the pool never ran out')
      }),
    )
    const { left } = expectExactPool(store, programId)
    // Whatever crumbs are left, a grant of exactly that much takes them.
    if (left > 0) {
      const last = makeGrantTokens({
        store,
        access: new AccessCache(store),
        random: seededRandom(1),
      })
      await last({ apiKey: key.secret, programId, idempotencyKey: undefined, body: body(left) })
    }
    expect(expectExactPool(store, programId)).toEqual({ issued: 5_000, left: 0 })
    // Slices ran dry under the instances' feet (their caches a step behind), and grants went on
    // on other slices, or in parts.
    expect(store.outcomes).toContain('shard_dry')
    expect(store.count('readShards')).toBeGreaterThan(0)
  })

  it('moves on when a slice was emptied by another instance after it was seen', async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 400, shards: 4 })
    let drained: number | undefined
    store.beforeWrite = (input) => {
      store.beforeWrite = undefined
      if (input.target.kind !== 'shard') throw new Error('expected a one-shard write')
      drained = input.target.shard
      // Another instance's grant takes the whole slice first.
      const shard = store.shards(programId)[drained]
      if (!shard) throw new Error('no such shard')
      store.state.programs.set(shard.programId, { ...shard, issued: 100, remaining: 0 })
    }
    const { grant } = await send(programId, 60)
    const targets = writes(store).map((w) => w.target)
    expect(store.outcomes).toEqual(['shard_dry', 'created'])
    expect(store.count('readShards')).toBe(1)
    const second = targets[1]
    expect(second?.kind === 'shard' && second.shard !== drained).toBe(true)
    expect(store.state.grants.get(grant.grantId)?.amount).toBe(60)
    const shards = store.shards(programId)
    expect(shards.reduce((sum, s) => sum + s.issued, 0)).toBe(160)
    expect(shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0)).toBe(240)
  })

  it('follows a program resharded meanwhile: a missing shard, a new read of the head, a grant', async () => {
    // random 0.9: the last shard of four, then of two.
    const { store, send, program } = setup({ random: () => 0.9 })
    const programId = program({ shards: 4 })
    await send(programId, 1)
    // Resharded to two (what the cache read had four).
    const head = store.head(programId) as ProgramRecord
    for (const shard of store.shards(programId)) store.state.programs.delete(shard.programId)
    store.state.programs.set(programId, { ...head, shards: 2, issued: 1 })
    for (const i of [0, 1]) {
      store.state.programs.set(`${programId}#shard-${i}`, {
        programId: `${programId}#shard-${i}`,
        shardOf: programId,
        issued: 0,
      })
    }
    await send(programId, 5)
    expect(store.outcomes).toEqual(['created', 'shard_missing', 'created'])
    expect(writes(store).map((w) => w.target)).toEqual([
      { kind: 'shard', shard: 3, limited: false },
      { kind: 'shard', shard: 3, limited: false },
      { kind: 'shard', shard: 1, limited: false },
    ])
    expect(await store.findProgram(programId)).toMatchObject({ issued: 6, shards: 2 })
  })

  it('of an unlimited program only counts, on any shard', async () => {
    const { store, send, program } = setup()
    const programId = program({ shards: 4 })
    for (const amount of [1_000_000, 1_000_000, 3]) await send(programId, amount)
    const found = await store.findProgram(programId)
    expect(found).toMatchObject({ issued: 2_000_003 })
    expect(found).not.toHaveProperty('remaining')
    expect(store.shards(programId).every((s) => s.remaining === undefined)).toBe(true)
  })
})

describe('the Idempotency-Key', () => {
  it('replays the same request (written differently) as the same grant, writing nothing more', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    const first = await send(programId, 25, { idempotencyKey: 'order-1' })
    advance(5_000)
    const before = store.snapshot()
    const again = await send(programId, 25, {
      idempotencyKey: 'order-1',
      body: body(25, '  ANN@example.COM '),
    })
    expect(again).toEqual({ grant: first.grant, replayed: true })
    // The write itself found the grant (one round trip, as for a new one).
    expect(store.outcomes).toEqual(['created', 'grant_exists'])
    expect(store.snapshot()).toEqual(before)
    expect(expectExactPool(store, programId)).toEqual({ issued: 25, left: 975 })
  })

  it('replays a grant already made even when the program now refuses grants', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 30, shards: 1 })
    const first = await send(programId, 30, { idempotencyKey: 'order-2' })
    // The pool is used up: the replay still wins.
    expect(await send(programId, 30, { idempotencyKey: 'order-2' })).toEqual({
      grant: first.grant,
      replayed: true,
    })
    store.state.programs.set(programId, {
      ...(store.head(programId) as ProgramRecord),
      status: 'closed',
    })
    advance(CHECK_BOUND_MS)
    expect(await send(programId, 30, { idempotencyKey: 'order-2' })).toEqual({
      grant: first.grant,
      replayed: true,
    })
    // Refused before any write, the grant was looked up first.
    expect(store.outcomes).toEqual(['created', 'grant_exists'])
    expect(store.count('findGrant')).toBe(1)
  })

  it('with a different request is idempotency_key_reused, and nothing is written', async () => {
    const { store, send, program, advance } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    const otherProgram = program({ pool: 1_000, shards: 4 })
    await send(programId, 25, { idempotencyKey: 'order-3' })
    for (const attempt of [
      send(programId, 26, { idempotencyKey: 'order-3' }),
      send(otherProgram, 25, { idempotencyKey: 'order-3' }),
      send(programId, 25, { idempotencyKey: 'order-3', body: { ...body(25), reason: 'Other' } }),
    ]) {
      await expectRefused(store, attempt, IdempotencyKeyReused, 'idempotency_key_reused')
    }
    // Also when the program now refuses grants: the grant is looked up first.
    store.state.programs.set(programId, {
      ...(store.head(programId) as ProgramRecord),
      status: 'paused',
    })
    advance(CHECK_BOUND_MS)
    await expectRefused(
      store,
      send(programId, 26, { idempotencyKey: 'order-3' }),
      IdempotencyKeyReused,
      'idempotency_key_reused',
    )
    expect(store.count('findGrant')).toBe(1)
  })

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-1'],
    ['a line break', 'a\nb'],
  ])('%s is invalid_idempotency_key, before any read', async (_, idempotencyKey) => {
    const { store, send, program } = setup()
    const programId = program({ pool: 1_000, shards: 4 })
    await expectRefused(
      store,
      send(programId, 1, { idempotencyKey }),
      InvalidIdempotencyKey,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters.',
    )
    expect(store.calls).toEqual([])
  })

  it('is scoped to the issuer: the same key of another issuer is another grant', async () => {
    const { store, send, program } = setup()
    const mine = program({ pool: 1_000, shards: 4 })
    const theirs = program({ pool: 1_000, shards: 4 }, { issuerId: OTHER })
    const theirKey = apiKeyFor(OTHER, 'TEST')
    store.addKey(theirKey.record)
    const a = await send(mine, 5, { idempotencyKey: 'shared' })
    const b = await send(theirs, 5, { idempotencyKey: 'shared', apiKey: theirKey.secret })
    expect(b.replayed).toBe(false)
    expect(b.grant.grantId).not.toBe(a.grant.grantId)
    expect(store.state.grants.size).toBe(2)
  })
})

describe('retries', () => {
  it('retries a conflict after a jittered pause and writes the grant once', async () => {
    const { store, send, program, waits } = setup()
    const programId = program({ pool: 100 })
    store.answerNext(2, { kind: 'conflict' })
    const { grant } = await send(programId, 3)
    expect(store.count('createGrant')).toBe(3)
    expect(waits).toHaveLength(2)
    // Full jitter under 15 ms × 2^attempt on a program's one counter.
    expect(waits[0]).toBeLessThan(30)
    expect(waits[1]).toBeLessThan(60)
    expect([...store.state.grants.keys()]).toEqual([grant.grantId])
    expect(store.head(programId)).toMatchObject({ issued: 3, remaining: 97 })
  })

  it('answers request_conflict when every attempt conflicts (5 on one counter), nothing written', async () => {
    const { store, send, program, waits } = setup()
    const programId = program({ pool: 100 })
    store.answerNext(100, { kind: 'conflict' })
    const error = await expectRefused(
      store,
      send(programId, 3),
      RequestConflict,
      'request_conflict',
    )
    expect(error.retryAfterSeconds).toBe(1)
    expect(store.count('createGrant')).toBe(5)
    expect(waits).toHaveLength(4)
  })

  it('on shards, retries a conflict up to 10 times, each time on another shard than the last', async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 1_000, shards: 8 })
    store.answerNext(100, { kind: 'conflict' })
    await expectRefused(store, send(programId, 3), RequestConflict, 'request_conflict')
    const shards = writes(store).map((w) => (w.target.kind === 'shard' ? w.target.shard : -1))
    expect(shards).toHaveLength(10)
    for (let i = 1; i < shards.length; i++) expect(shards[i]).not.toBe(shards[i - 1])
  })

  it('stops retrying when the deadline leaves no time for another attempt', async () => {
    const { store, grantTokens, program, waits, key } = setup()
    const programId = program({ pool: 100 })
    store.answerNext(100, { kind: 'conflict' })
    const deadline: Deadline = { signal: new AbortController().signal, remainingMs: () => 1_000 }
    await expectRefused(
      store,
      grantTokens({
        apiKey: key.secret,
        programId,
        idempotencyKey: undefined,
        body: body(1),
        deadline,
      }),
      RequestConflict,
      'request_conflict',
    )
    expect(store.count('createGrant')).toBe(1)
    expect(waits).toEqual([])
  })

  it('retries a throttle and answers service_unavailable when it lasts (10 attempts)', async () => {
    const { store, send, program, waits } = setup()
    const programId = program({ pool: 100 })
    store.answerNext(1, { kind: 'throttled' })
    await send(programId, 1)
    expect(store.count('createGrant')).toBe(2)
    store.answerNext(100, { kind: 'throttled' })
    waits.length = 0
    const error = await expectRefused(
      store,
      send(programId, 1),
      ServiceUnavailable,
      'service_unavailable',
    )
    expect(error.retryAfterSeconds).toBe(1)
    expect(store.count('createGrant')).toBe(2 + 10)
    expect(waits).toHaveLength(9)
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(1_000)
  })

  it('after request_conflict, the same Idempotency-Key retried makes the grant once', async () => {
    const { store, send, program } = setup()
    const programId = program({ pool: 100, shards: 1 })
    store.answerNext(10, { kind: 'conflict' })
    await expectRefused(
      store,
      send(programId, 7, { idempotencyKey: 'k-9' }),
      RequestConflict,
      'request_conflict',
    )
    const made = await send(programId, 7, { idempotencyKey: 'k-9' })
    expect(made.replayed).toBe(false)
    expect(await send(programId, 7, { idempotencyKey: 'k-9' })).toEqual({
      grant: made.grant,
      replayed: true,
    })
    expect(expectExactPool(store, programId)).toEqual({ issued: 7, left: 93 })
  })
})

describe('a member send (management API)', () => {
  /** A member of `issuerId` sending, with the audit entry of a single send. */
  const member = (issuerId: string) => ({
    apiKey: undefined,
    member: { issuerId, sentBy: ANN, audit: { requestId: 'req-1' } },
    idempotencyKey: undefined,
  })

  it("writes the grant with its sender and the audit entry in one write, in the program's mode", async () => {
    const { store, grantTokens, program } = setup()
    const programId = program({ pool: 100, shards: 1 }, { mode: 'LIVE' })
    const { grant } = await grantTokens({ ...member(ISSUER), programId, body: body(4) })
    expect(grant).toMatchObject({ issuerId: ISSUER, mode: 'LIVE', sentBy: ANN, amount: 4 })
    expect(grant.keyId).toBeUndefined()
    expect(store.state.audit).toEqual([
      expect.objectContaining({
        issuerId: ISSUER,
        action: 'grant.send',
        actor: { kind: 'person', ...ANN },
        target: { type: 'grant', id: grant.grantId },
        requestId: 'req-1',
        details: { programId, mode: 'LIVE', amount: 4, recipient: 'ann@example.com' },
      }),
    ])
    expect(store.count('createGrant')).toBe(1)
  })

  it("to another issuer's program is program_not_found, and nothing is written", async () => {
    const { store, grantTokens, program } = setup()
    const theirs = program({ pool: 100, shards: 1 }, { issuerId: OTHER })
    await expectRefused(
      store,
      grantTokens({ ...member(ISSUER), programId: theirs, body: body(4) }),
      ProgramNotFound,
      'program_not_found',
    )
    expect(store.count('createGrant')).toBe(0)
    expect(store.state.audit).toEqual([])
  })

  it('with the mode its batch recorded, other than the program’s, is mode_mismatch', async () => {
    const { store, grantTokens, program } = setup()
    const programId = program({ pool: 100, shards: 1 })
    await expectRefused(
      store,
      grantTokens({
        apiKey: undefined,
        member: { issuerId: ISSUER, sentBy: ANN, mode: 'LIVE' },
        programId,
        idempotencyKey: undefined,
        body: body(4),
      }),
      ModeMismatch,
      'mode_mismatch',
    )
  })

  it('shares the Idempotency-Key scope of the API: the same key and request replay across doors', async () => {
    const { store, grantTokens, send, program } = setup()
    const programId = program({ pool: 100, shards: 1 })
    const sent = await grantTokens({
      ...member(ISSUER),
      programId,
      idempotencyKey: 'both',
      body: body(4),
    })
    const again = await send(programId, 4, { idempotencyKey: 'both' })
    expect(again).toEqual({ grant: sent.grant, replayed: true })
    expect(store.state.audit).toHaveLength(1)
  })
})
