import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantLife } from '../../functions/core/grant-life'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import type { GrantRecord } from '../../functions/domain/grant'
import { countsAsIssued } from '../../functions/domain/grant-lifecycle'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { admin, createKey, programState } from '../support/api'
import { seededRandom } from '../support/fault-injector'
import { config, documentClient } from '../support/runtime'

/**
 * A grant's life on DynamoDB Local (the real conditions and transactions): racing changes have
 * exactly one winner, and shares come back to the slices they were drawn from exactly once, so
 * `issued` stays the shares of open and accepted grants and the pool stays exact.
 */
const grants = new DynamoDbGrantStore(documentClient, config.tables)
const store = new DynamoDbGrantLifeStore(documentClient, config.tables)
const DAY = 24 * 60 * 60 * 1000

const setUp = async (pool: number, shards?: number) => {
  const { issuerId } = await admin.createIssuer({ name: 'Life' })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode: 'TEST',
    name: 'life',
    pool,
    ...(shards === undefined ? {} : { shards }),
  })
  const key = await createKey({ issuerId, mode: 'TEST' })
  return { issuerId, programId: program.programId, key: key.secret }
}

const makeGrants = async (
  target: { programId: string; key: string },
  amounts: number[],
  seed = 1,
): Promise<GrantRecord[]> => {
  const send = makeGrantTokens({
    store: grants,
    access: new AccessCache(grants),
    random: seededRandom(seed),
  })
  const made: GrantRecord[] = []
  for (const [i, amount] of amounts.entries()) {
    const { grant } = await send({
      apiKey: target.key,
      programId: target.programId,
      idempotencyKey: `life-${seed}-${i}`,
      body: { recipient: { email: `r${i}@example.com` }, reason: 'Launch', amount },
    })
    made.push(grant)
  }
  return made
}

/** pool = issued + what the slices hold, and issued = the shares of open and accepted grants. */
const expectExact = async (programId: string, pool: number) => {
  const state = await programState(programId)
  const held = state.shards.length
    ? state.shards.reduce((sum, shard) => sum + (shard.remaining ?? 0), 0)
    : (state.program?.remaining ?? 0)
  for (const shard of state.shards) {
    expect(shard.remaining ?? 0).toBeGreaterThanOrEqual(0)
    expect(shard.issued).toBeGreaterThanOrEqual(0)
  }
  const counted = state.grants
    .filter((g) => countsAsIssued(g.status))
    .reduce((sum, g) => sum + g.amount, 0)
  expect(state.issued).toBe(counted)
  expect(state.issued + held).toBe(pool)
  return state
}

const transitions = (grant: GrantRecord | undefined) =>
  (grant?.history ?? []).filter((entry) => entry.event === 'transition')

describe("a grant's life on a sharded pool", () => {
  it('records the slice each grant drew from, in the grant itself', async () => {
    const target = await setUp(800, 8)
    // 150 is more than any slice (100) holds: taken in parts, recorded as draws.
    const [small, large] = await makeGrants(target, [3, 150])
    const stored = await store.findGrants([small?.grantId ?? '', large?.grantId ?? ''])
    const bySmall = stored.find((g) => g.grantId === small?.grantId)
    const byLarge = stored.find((g) => g.grantId === large?.grantId)
    expect(bySmall?.shard).toEqual(expect.any(Number))
    expect(bySmall?.expiresAt).toBe(
      new Date(Date.parse(bySmall?.createdAt ?? '') + 30 * DAY).toISOString(),
    )
    expect(bySmall?.recipientKey).toBe('r0@example.com')
    expect(byLarge?.draws?.reduce((sum, d) => sum + d.take, 0)).toBe(150)
    await expectExact(target.programId, 800)
  })

  it('has one winner when 20 cancels race, and returns the shares once', async () => {
    const target = await setUp(800, 8)
    const made = await makeGrants(target, [5, 150])
    const life = makeGrantLife({ store, clock: Date.now })
    for (const grant of made) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          life.cancel({
            grantId: grant.grantId,
            issuerId: target.issuerId,
            actor: { kind: 'key', keyId: 'k_test' },
          }),
        ),
      )
      for (const answer of answers) expect(answer.status).toBe('canceled')
      const [stored] = await store.findGrants([grant.grantId])
      expect(transitions(stored)).toHaveLength(1)
    }
    await expectExact(target.programId, 800)
  })

  it('has one winner when accepts race cancels, and when accepts race each other', async () => {
    const target = await setUp(1000, 8)
    const made = await makeGrants(target, [1, 2, 3, 4, 5, 6, 7, 8], 2)
    const life = makeGrantLife({ store, clock: Date.now })
    const common = { issuerId: target.issuerId, mode: 'TEST' as const }
    await Promise.all(
      made.map((grant) => life.testMove({ ...common, grantId: grant.grantId, to: 'offered' })),
    )
    const outcomes = await Promise.all(
      made.map(async (grant, i) => {
        const attempts = Array.from({ length: 12 }, (_, n) =>
          // Even grants: accepts against cancels; odd grants: accepts against accepts.
          i % 2 === 0 && n % 2 === 1
            ? life.cancel({ ...common, grantId: grant.grantId, actor: { kind: 'key', keyId: 'k' } })
            : life.testMove({ ...common, grantId: grant.grantId, to: 'accepted' }),
        )
        const settled = await Promise.allSettled(attempts)
        return { grant, settled }
      }),
    )
    for (const { grant, settled } of outcomes) {
      const [stored] = await store.findGrants([grant.grantId])
      // identify, then exactly one of accept or cancel
      expect(transitions(stored)).toHaveLength(2)
      expect(['accepted', 'canceled']).toContain(stored?.status)
      for (const result of settled) {
        if (result.status === 'rejected') {
          // The losers are told the grant moved on: accepted is final, a canceled one can't be accepted.
          expect(['grant_accepted', 'grant_state_conflict']).toContain(
            (result.reason as { code?: string }).code,
          )
        }
      }
    }
    await expectExact(target.programId, 1000)
  })

  it('has one winner when an accept races the expiry at the end of the window', async () => {
    const target = await setUp(600, 6)
    const made = await makeGrants(target, [2, 3, 4], 3)
    const now = Date.now()
    const before = makeGrantLife({ store, clock: () => now })
    // The sweep's clock a moment after the window closed: it may expire, it may not accept.
    const afterWindow = makeGrantLife({ store, clock: () => now + 31 * DAY })
    const common = { issuerId: target.issuerId, mode: 'TEST' as const }
    for (const grant of made) {
      await before.testMove({ ...common, grantId: grant.grantId, to: 'offered' })
      const settled = await Promise.allSettled([
        ...Array.from({ length: 8 }, () =>
          before.testMove({ ...common, grantId: grant.grantId, to: 'accepted' }),
        ),
        ...Array.from({ length: 8 }, () => afterWindow.expire(grant.grantId)),
      ])
      const [stored] = await store.findGrants([grant.grantId])
      expect(transitions(stored)).toHaveLength(2)
      expect(['accepted', 'expired']).toContain(stored?.status)
      expect(settled.filter((r) => r.status === 'fulfilled').length).toBeGreaterThan(0)
    }
    // After the window, the recipient's accept is refused by the clock, whatever the sweep did.
    const [late] = await makeGrants(target, [1], 4)
    await before.testMove({ ...common, grantId: late?.grantId ?? '', to: 'offered' })
    await expect(
      afterWindow.testMove({ ...common, grantId: late?.grantId ?? '', to: 'accepted' }),
    ).rejects.toMatchObject({ code: 'offer_expired' })
    expect(await afterWindow.expire(late?.grantId ?? '')).toBe('expired')
    expect(await afterWindow.expire(late?.grantId ?? '')).toBe('final')
    await expectExact(target.programId, 600)
  })

  it('gives a refused pool the shares returned since, proved by a second read', async () => {
    const target = await setUp(200, 2)
    const made = await makeGrants(target, [100, 100], 5)
    const send = makeGrantTokens({
      store: grants,
      access: new AccessCache(grants),
      random: seededRandom(9),
    })
    const ask = (id: string) =>
      send({
        apiKey: target.key,
        programId: target.programId,
        idempotencyKey: id,
        body: { recipient: { email: 'late@example.com' }, reason: 'Launch', amount: 60 },
      })
    await expect(ask('full')).rejects.toMatchObject({ code: 'pool_exhausted' })
    const life = makeGrantLife({ store, clock: Date.now })
    await life.testMove({
      issuerId: target.issuerId,
      mode: 'TEST',
      grantId: made[0]?.grantId ?? '',
      to: 'rejected',
    })
    // A new instance (no cached refusal): the returned slice holds the grant.
    const fresh = makeGrantTokens({
      store: grants,
      access: new AccessCache(grants),
      random: seededRandom(10),
    })
    const { grant } = await fresh({
      apiKey: target.key,
      programId: target.programId,
      idempotencyKey: 'after-return',
      body: { recipient: { email: 'late@example.com' }, reason: 'Launch', amount: 60 },
    })
    expect(grant.status).toBe('reserved')
    const state = await expectExact(target.programId, 200)
    for (const shard of state.shards) expect(shard.version).toBeGreaterThan(0)
  })

  it('returns the shares of a grant made before draws were recorded, and on an unsharded pool', async () => {
    const sharded = await setUp(400, 4)
    const [old] = await makeGrants(sharded, [7], 6)
    await documentClient.send(
      new UpdateCommand({
        TableName: config.tables.grants,
        Key: { grantId: old?.grantId },
        UpdateExpression: 'REMOVE #shard, #draws',
        ExpressionAttributeNames: { '#shard': 'shard', '#draws': 'draws' },
      }),
    )
    const life = makeGrantLife({ store, clock: Date.now })
    await life.cancel({
      grantId: old?.grantId ?? '',
      issuerId: sharded.issuerId,
      actor: { kind: 'operator' },
    })
    await expectExact(sharded.programId, 400)

    const single = await setUp(50)
    const made = await makeGrants(single, [10, 20], 7)
    await life.cancel({
      grantId: made[1]?.grantId ?? '',
      issuerId: single.issuerId,
      actor: { kind: 'operator' },
    })
    const state = await expectExact(single.programId, 50)
    expect(state.issued).toBe(10)
  })

  it('answers another issuer, another mode or a LIVE grant as the rules say', async () => {
    const target = await setUp(100, 1)
    const [grant] = await makeGrants(target, [1], 8)
    const life = makeGrantLife({ store, clock: Date.now })
    const id = grant?.grantId ?? ''
    await expect(
      life.cancel({ grantId: id, issuerId: 'iss_other', actor: { kind: 'operator' } }),
    ).rejects.toMatchObject({ code: 'grant_not_found' })
    await expect(
      life.cancel({
        grantId: id,
        issuerId: target.issuerId,
        mode: 'LIVE',
        actor: { kind: 'operator' },
      }),
    ).rejects.toMatchObject({ code: 'grant_not_found' })
    await expect(
      life.testMove({ grantId: id, issuerId: target.issuerId, mode: 'LIVE', to: 'accepted' }),
    ).rejects.toMatchObject({ code: 'test_mode_only' })
    await life.testMove({ grantId: id, issuerId: target.issuerId, mode: 'TEST', to: 'accepted' })
    await expect(
      life.cancel({ grantId: id, issuerId: target.issuerId, actor: { kind: 'operator' } }),
    ).rejects.toMatchObject({ code: 'grant_accepted' })
    const balance = await life.balance({
      issuerId: target.issuerId,
      mode: 'TEST',
      programId: target.programId,
      email: 'R0@example.com',
    })
    expect(balance).toMatchObject({ accepted: 1, pending: 0 })
  })

  it('never loses a link token or a mark when offer changes race (tokens, reminder, delivery)', async () => {
    const target = await setUp(100, 1)
    const [made] = await makeGrants(target, [1], 11)
    const id = made?.grantId ?? ''
    // 28 days in: the reminder is due while links are made and deliveries recorded.
    const later = makeGrantLife({ store, clock: () => Date.now() + 28 * DAY })
    // A writer that lost every one of its tries to the others answers `unavailable` (or no link)
    // and its caller tries again, as the offer mailer's queue does: on a loaded machine seven
    // writers on one item can do that. What was answered done must all be on the grant.
    const again = async <T>(call: () => Promise<T>, lost: (r: T) => boolean) => {
      for (let n = 0; ; n++) {
        const result = await call()
        if (!lost(result) || n === 4) return result
      }
    }
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () =>
        again(
          () => later.issueOfferLink(id),
          (r) => r === undefined,
        ),
      ),
      later.remind(id),
      again(
        () => later.recordDelivery({ grantId: id, event: 'sent' }),
        (r) => r === 'unavailable',
      ),
      again(
        () => later.recordDelivery({ grantId: id, event: 'sent' }),
        (r) => r === 'unavailable',
      ),
    ])
    const [stored] = await store.findGrants([id])
    const tokens = results.slice(0, 4).map((r) => (r as { token: string } | undefined)?.token)
    expect(tokens.every((t) => typeof t === 'string')).toBe(true)
    // Every link made is still valid on the grant, the reminder is marked, both sends counted.
    expect(stored?.offer?.tokens).toHaveLength(4)
    expect(stored?.offer?.remindedAt).toEqual(expect.any(String))
    expect(stored?.offer?.sends).toBe(2)
    expect(results[4]).toBe('reminded')
  })
})
