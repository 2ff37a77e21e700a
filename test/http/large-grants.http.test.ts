import { consumerById } from '../../functions/consumers'
import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import {
  addMember,
  auditLog,
  declaredAccess,
  manageCall,
  recordAccess,
} from '../manage/grants-support'
import {
  advanceCheckClock,
  expectProblem,
  grantBody,
  newIssuer,
  postGrant,
  programState,
} from '../support/api'
import { useApi, useRoundTripCounter } from '../support/api-harness'
import { signUpPerson } from '../support/identity'
import { dynamodb } from '../support/runtime'

/**
 * Issue 17, item 1: a grant that fits what the pool has left answers 201 on its first request,
 * whatever its size against the pool's slices (64 shards of about 156 shares for a pool of
 * 10,000); one that does not fit answers pool_exhausted; never a retryable 409 because of how the
 * pool is sliced.
 */
const counter = useRoundTripCounter()
const api = useApi()

const POOL = 10_000
const SLICE = Math.ceil(POOL / 64) // the largest slice a new program of this pool gets: 157

const send = (
  issuer: Awaited<ReturnType<typeof newIssuer>>,
  amount: number,
  idempotencyKey: string,
) =>
  postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, grantBody({ amount }), {
    'idempotency-key': idempotencyKey,
  })

describe('grants larger than a slice of the pool', () => {
  it('answers 201 on the first request for 1, slice+1, 1,000, 5,000 and exactly the rest of a pool of 10,000, then pool_exhausted for one more share', async () => {
    const issuer = await newIssuer({ pool: POOL })
    const before = await programState(issuer.programs.TEST)
    expect(before.shards).toHaveLength(64)
    expect(Math.max(...before.shards.map((s) => s.remaining ?? 0))).toBe(SLICE)

    const amounts = [1, SLICE + 1, 1_000, 5_000]
    const rest = POOL - amounts.reduce((a, b) => a + b, 0) // 3,841
    for (const [i, amount] of [...amounts, rest].entries()) {
      const call = await send(issuer, amount, `large-${i}`)
      expect({ amount, status: call.status, body: call.body.amount }).toEqual({
        amount,
        status: 201,
        body: amount,
      })
      expect(call.headers.get('idempotent-replayed')).toBeNull()
    }
    const spent = await programState(issuer.programs.TEST)
    expect(spent.issued).toBe(POOL)
    expect(spent.shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0)).toBe(0)
    expect(spent.grants.map((g) => g.amount).sort((a, b) => a - b)).toEqual(
      [...amounts, rest].sort((a, b) => a - b),
    )

    // One more share: refused as exhausted, not as a conflict, and nothing written.
    const more = await send(issuer, 1, 'one-more')
    expectProblem(more, 409, 'pool_exhausted')
    expect(more.body.detail).toContain('0 shares left')
    expect(more.headers.get('retry-after')).toBeNull()
    // The grants made keep their first answers.
    const replay = await send(issuer, 5_000, 'large-3')
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect((await programState(issuer.programs.TEST)).grants).toHaveLength(5)
  })

  it('refuses a grant larger than what is left with pool_exhausted at once, and still grants what fits', async () => {
    const issuer = await newIssuer({ pool: POOL })
    expect((await send(issuer, 9_000, 'most')).status).toBe(201)
    const tooMuch = await send(issuer, 1_001, 'too-much')
    expectProblem(tooMuch, 409, 'pool_exhausted')
    expect(tooMuch.body.detail).toBe(
      'The program has 1000 shares left in its pool; this grant asks for 1001.',
    )
    // The cache knows the total is short of 1,001, not of 1,000: that still fits.
    expect((await send(issuer, 1_000, 'the-rest')).status).toBe(201)
    expect((await programState(issuer.programs.TEST)).issued).toBe(POOL)
  })

  it('costs one read of the shards and one transaction for a grant no slice holds, with a warm key', async () => {
    const issuer = await newIssuer({ pool: POOL })
    expect((await send(issuer, 1, 'warm')).status).toBe(201) // key and program now checked
    counter.reset()
    expect((await send(issuer, 1_000, 'spans-slices')).status).toBe(201)
    expect([...counter.calls]).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand'])
    // A grant a slice holds stays one transaction.
    counter.reset()
    expect((await send(issuer, SLICE - 10, 'one-slice')).status).toBe(201)
    expect([...counter.calls]).toEqual(['TransactWriteItemsCommand'])
    advanceCheckClock(CHECK_BOUND_MS)
  })
})

describe("the console's send one, larger than a slice", () => {
  it('sends 1,000 shares from a LIVE pool of 50,000 (slices of 781) on the first request, with one audit entry', async () => {
    const issuer = await newIssuer({ pool: 50_000 })
    const person = await signUpPerson()
    await addMember(issuer.issuerId, person, 'admin')
    const access = recordAccess(dynamodb)
    const call = await manageCall(
      api.baseUrl,
      person,
      'POST',
      `/manage/issuers/${issuer.issuerId}/programs/${issuer.programs.LIVE}/grants`,
      { body: grantBody({ amount: 1_000 }), headers: { 'idempotency-key': 'console-send' } },
    ).finally(() => access.stop())
    expect({ status: call.status, amount: call.body.amount }).toEqual({
      status: 201,
      amount: 1_000,
    })
    const state = await programState(issuer.programs.LIVE)
    expect(state.issued).toBe(1_000)
    expect(state.shards.reduce((sum, s) => sum + (s.remaining ?? 0), 0)).toBe(49_000)
    // Taken in parts: more than one slice gave to it.
    expect(state.shards.filter((s) => s.issued > 0).length).toBeGreaterThan(1)
    const sends = (await auditLog(issuer.issuerId)).filter((e) => e.action === 'grant.send')
    expect(sends).toHaveLength(1)
    expect(sends[0]?.details).toMatchObject({ amount: 1_000 })
    // IAM: the read of the shards (BatchGetItem) is declared by the route, and by the batch
    // worker, which grants a row through the same use case.
    expect([...access.seen]).toContain('programs dynamodb:BatchGetItem')
    const route = declaredAccess('SendGrant')
    for (const line of access.seen) expect(route).toContain(line)
    const worker = Object.entries(consumerById('GrantBatchWorker').access).flatMap(
      ([table, actions]) => actions.map((action) => `${table} ${action}`),
    )
    for (const line of access.seen) {
      if (line.startsWith('programs ')) expect(worker).toContain(line)
    }
  })
})
