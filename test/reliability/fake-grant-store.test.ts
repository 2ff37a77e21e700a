import { PutCommand } from '@aws-sdk/lib-dynamodb'
import type { ApiKeyRecord, Mode } from '../../functions/domain/api-key'
import type { GrantRecord } from '../../functions/domain/grant'
import { newId } from '../../functions/domain/ids'
import type { ProgramRecord } from '../../functions/domain/program'
import { newShards, type ShardRecord, shardKey } from '../../functions/domain/program-shards'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import type {
  CreateGrantInput,
  CreateGrantOutcome,
  GrantAuthority,
  GrantStore,
  GrantTarget,
} from '../../functions/stores/grants.store'
import { apiKeyFor, FakeGrantStore } from '../support/fake-grant-store'
import { config, documentClient } from '../support/runtime'

/**
 * The in-memory GrantStore of the core's in-process tests (test/support/fake-grant-store.ts)
 * answers as DynamoDbGrantStore does on DynamoDB Local: each case seeds the same items in both,
 * makes the same createGrant, and compares the outcome and every item after it. This is what
 * lets test/unit/core-grant-tokens.test.ts stand for the real store's conditions.
 */
const dynamo = new DynamoDbGrantStore(documentClient, config.tables)

type Item = ProgramRecord | ShardRecord

/** Writes items as they are into one store's tables. */
type Seed = {
  program(item: Item): Promise<void>
  grant(grant: GrantRecord): Promise<void>
  key(key: ApiKeyRecord): Promise<void>
}

const seedDynamo: Seed = {
  program: async (item) => {
    await documentClient.send(new PutCommand({ TableName: config.tables.programs, Item: item }))
  },
  grant: async (grant) => {
    await documentClient.send(new PutCommand({ TableName: config.tables.grants, Item: grant }))
  },
  key: async (key) => {
    await documentClient.send(new PutCommand({ TableName: config.tables.apiKeys, Item: key }))
  },
}

const seedFake = (store: FakeGrantStore): Seed => ({
  program: async (item) => {
    store.state.programs.set(item.programId, structuredClone(item))
  },
  grant: async (grant) => {
    store.state.grants.set(grant.grantId, structuredClone(grant))
  },
  key: async (key) => {
    store.addKey(key)
  },
})

const ISSUER = newId('issuer')

const head = (programId: string, extra: Partial<ProgramRecord> = {}): ProgramRecord => ({
  programId,
  issuerId: ISSUER,
  mode: 'TEST',
  name: 'Contract',
  status: 'active',
  issued: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
})

const grantOf = (programId: string, amount: number, grantId = newId('grant')): GrantRecord => ({
  grantId,
  programId,
  issuerId: ISSUER,
  mode: 'TEST',
  recipient: { email: 'ann@example.com' },
  reason: 'Contract',
  amount,
  status: 'reserved',
  createdAt: '2026-03-01T12:00:00.000Z',
  requestHash: 'h',
})

const byIssuer = (issuerId = ISSUER, mode: Mode = 'TEST'): GrantAuthority => ({
  kind: 'issuer',
  issuerId,
  mode,
})

type Case = {
  /** The program's items (head and shards) before the grant. */
  items: (programId: string) => Item[]
  /** Grants already there. */
  grants?: (programId: string, grantId: string) => GrantRecord[]
  target: GrantTarget
  amount: number
  authority?: GrantAuthority
  expected: CreateGrantOutcome['kind'] | 'throws'
}

const sharded = (programId: string, shards: number, pool?: number, extra = {}) => [
  head(programId, { shards, ...(pool === undefined ? {} : { pool }), ...extra }),
  ...newShards(programId, shards, pool),
]

const CASES: Record<string, Case> = {
  'head: taken from its one counter': {
    items: (p) => [head(p, { pool: 10, remaining: 10 })],
    target: { kind: 'head' },
    amount: 4,
    expected: 'created',
  },
  'head without a pool: counted (and ADD makes a remaining below 0)': {
    items: (p) => [head(p, { issued: 3 })],
    target: { kind: 'head' },
    amount: 4,
    expected: 'created',
  },
  'head: less left than asked': {
    items: (p) => [head(p, { pool: 10, issued: 7, remaining: 3 })],
    target: { kind: 'head' },
    amount: 4,
    expected: 'program_rejected',
  },
  'head: exactly what is left': {
    items: (p) => [head(p, { pool: 10, issued: 6, remaining: 4 })],
    target: { kind: 'head' },
    amount: 4,
    expected: 'created',
  },
  'head: paused': {
    items: (p) => [head(p, { pool: 10, remaining: 10, status: 'paused' })],
    target: { kind: 'head' },
    amount: 1,
    expected: 'program_rejected',
  },
  "head: another issuer's": {
    items: (p) => [head(p, { pool: 10, remaining: 10 })],
    target: { kind: 'head' },
    amount: 1,
    authority: byIssuer(newId('issuer')),
    expected: 'program_rejected',
  },
  'head: the other mode': {
    items: (p) => [head(p, { pool: 10, remaining: 10 })],
    target: { kind: 'head' },
    amount: 1,
    authority: byIssuer(ISSUER, 'LIVE'),
    expected: 'program_rejected',
  },
  'head: split into shards meanwhile': {
    items: (p) => sharded(p, 2, 10),
    target: { kind: 'head' },
    amount: 1,
    expected: 'program_rejected',
  },
  'head: no such program': {
    items: () => [],
    target: { kind: 'head' },
    amount: 1,
    expected: 'program_rejected',
  },
  'shard: taken from its slice': {
    items: (p) => sharded(p, 4, 400),
    target: { kind: 'shard', shard: 2, limited: true },
    amount: 100,
    expected: 'created',
  },
  'shard: less left in the slice than asked': {
    items: (p) => sharded(p, 4, 400),
    target: { kind: 'shard', shard: 1, limited: true },
    amount: 101,
    expected: 'shard_dry',
  },
  'shard: gone (resharded)': {
    items: (p) => sharded(p, 2, 400),
    target: { kind: 'shard', shard: 3, limited: true },
    amount: 1,
    expected: 'shard_missing',
  },
  'shard of an unlimited program: counted': {
    items: (p) => sharded(p, 4),
    target: { kind: 'shard', shard: 0, limited: false },
    amount: 1_000_000,
    expected: 'created',
  },
  'shard of an unlimited program, written as limited': {
    items: (p) => sharded(p, 4),
    target: { kind: 'shard', shard: 0, limited: true },
    amount: 1,
    expected: 'shard_dry',
  },
  'shard of an unlimited program: gone': {
    items: (p) => sharded(p, 1),
    target: { kind: 'shard', shard: 1, limited: false },
    amount: 1,
    expected: 'shard_missing',
  },
  'shard: the program paused (not the transaction’s to check)': {
    items: (p) => sharded(p, 2, 200, { status: 'paused' }),
    target: { kind: 'shard', shard: 0, limited: true },
    amount: 1,
    expected: 'created',
  },
  'spread: parts from three slices': {
    items: (p) => sharded(p, 4, 400),
    target: {
      kind: 'spread',
      takes: [
        { shard: 3, take: 100 },
        { shard: 0, take: 100 },
        { shard: 1, take: 50 },
      ],
    },
    amount: 250,
    expected: 'created',
  },
  'spread: one part more than its slice holds, so no part is taken': {
    items: (p) => sharded(p, 4, 400),
    target: {
      kind: 'spread',
      takes: [
        { shard: 0, take: 100 },
        { shard: 2, take: 101 },
      ],
    },
    amount: 201,
    expected: 'shard_dry',
  },
  'spread: one part from a shard that is gone': {
    items: (p) => sharded(p, 2, 400),
    target: {
      kind: 'spread',
      takes: [
        { shard: 0, take: 200 },
        { shard: 5, take: 1 },
      ],
    },
    amount: 201,
    expected: 'shard_missing',
  },
  'spread: one shard named twice': {
    items: (p) => sharded(p, 4, 400),
    target: {
      kind: 'spread',
      takes: [
        { shard: 0, take: 50 },
        { shard: 0, take: 50 },
      ],
    },
    amount: 100,
    expected: 'throws',
  },
  'the grant exists: answered, whatever the counter says': {
    items: (p) => sharded(p, 2, 200),
    grants: (p, grantId) => [{ ...grantOf(p, 7, grantId), reason: 'First' }],
    target: { kind: 'shard', shard: 0, limited: true },
    amount: 500,
    expected: 'grant_exists',
  },
}

/** The outcome of the case on one store, and every item it then holds. */
const run = async (
  store: GrantStore,
  seed: Seed,
  name: string,
  programId: string,
  grantId: string,
) => {
  const c = CASES[name] as Case
  const items = c.items(programId)
  for (const item of items) await seed.program(item)
  for (const grant of c.grants?.(programId, grantId) ?? []) await seed.grant(grant)
  const input: CreateGrantInput = {
    grant: grantOf(programId, c.amount, grantId),
    authority: c.authority ?? byIssuer(),
    target: c.target,
  }
  const outcome = await store.createGrant(input).catch((error: Error) => ({
    kind: 'throws' as const,
    name: error.name,
  }))
  // Every key the case could have touched: the head, shards 0-7, the grant.
  const after = await Promise.all(
    [programId, ...Array.from({ length: 8 }, (_, i) => shardKey(programId, i))].map(
      async (key) => (await store.findAccess({ programId: key })).program,
    ),
  )
  return { outcome, programs: after, grant: await store.findGrant(grantId) }
}

describe('FakeGrantStore.createGrant answers as DynamoDbGrantStore on DynamoDB Local', () => {
  it.each(Object.entries(CASES))('%s', async (name, c) => {
    const programId = newId('program')
    const grantId = newId('grant')
    const fake = new FakeGrantStore()
    const real = await run(dynamo, seedDynamo, name, programId, grantId)
    const mine = await run(fake, seedFake(fake), name, programId, grantId)
    // DynamoDB's own error (a ValidationException) and the fake's differ in name; both refuse.
    if (c.expected === 'throws') {
      expect(real.outcome.kind).toBe('throws')
      expect(mine.outcome.kind).toBe('throws')
      expect(mine.programs).toEqual(real.programs)
      expect(mine.grant).toEqual(real.grant)
      return
    }
    expect(real.outcome.kind).toBe(c.expected)
    expect(mine).toEqual(real)
  })
})

describe('the reads answer alike', () => {
  it('findProgram sums the shards, readShards leaves out the missing ones, the key comes with a grant', async () => {
    const fake = new FakeGrantStore()
    const programId = newId('program')
    const key = apiKeyFor(ISSUER, 'TEST').record
    const grant = grantOf(programId, 30)
    const results = []
    for (const [store, seed] of [
      [dynamo, seedDynamo],
      [fake, seedFake(fake)],
    ] as const) {
      for (const item of sharded(programId, 3, 300, { issued: 5 })) await seed.program(item)
      await seed.key(key)
      await store.createGrant({
        grant,
        authority: byIssuer(),
        target: { kind: 'spread', takes: [{ shard: 0, take: 30 }] },
      })
      const shards = (await store.readShards(programId, 5)).sort((a, b) =>
        a.programId.localeCompare(b.programId),
      )
      results.push({
        program: await store.findProgram(programId),
        shards,
        access: await store.findAccess({ keyHash: key.keyHash, programId }),
        withKey: await store.findGrantWithKey(key.keyHash, grant.grantId),
        missing: await store.findProgram(newId('program')),
      })
    }
    const [real, mine] = results
    expect(real?.program).toMatchObject({ issued: 35, remaining: 265, pool: 300 })
    expect(real?.shards).toHaveLength(3)
    expect(mine).toEqual(real)
  })
})
