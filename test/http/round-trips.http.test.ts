import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import {
  advanceCheckClock,
  createKey,
  grantBody,
  newIssuer,
  postGrant,
  request,
  revokeKey,
} from '../support/api'
import { useApi, useRoundTripCounter } from '../support/api-harness'

const counter = useRoundTripCounter()
const api = useApi()

/** DynamoDB calls one HTTP request causes, counted by an SDK middleware (not by timing). */
const roundTrips = async (act: () => Promise<unknown>) => {
  counter.reset()
  await act()
  return [...counter.calls]
}

describe('DynamoDB round trips per request', () => {
  it('costs 2 for a key and program not yet checked (one BatchGetItem for both), then 1 (a single TransactWriteItems)', async () => {
    const issuer = await newIssuer()
    const cold = await roundTrips(async () => {
      expect((await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)).status).toBe(
        201,
      )
    })
    expect(cold).toEqual(['BatchGetItemCommand', 'TransactWriteItemsCommand'])
    const warm = await roundTrips(async () => {
      expect((await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)).status).toBe(
        201,
      )
    })
    expect(warm).toEqual(['TransactWriteItemsCommand'])
  })

  it('amortises the checks: 100 grants over 2 s of the cache clock cost 100 transactions and 2 reads of key and program', async () => {
    const issuer = await newIssuer()
    await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST) // checks now fresh
    const calls = await roundTrips(async () => {
      for (let i = 0; i < 100; i++) {
        advanceCheckClock(20) // 50 grants per second of the cache's clock
        expect((await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)).status).toBe(
          201,
        )
      }
    })
    expect(calls.filter((c) => c === 'TransactWriteItemsCommand')).toHaveLength(100)
    // Re-read once CHECK_BOUND_MS old: at 1,000 ms and 2,000 ms, key and head together.
    expect(calls.filter((c) => c !== 'TransactWriteItemsCommand')).toEqual([
      'BatchGetItemCommand',
      'BatchGetItemCommand',
    ])
    expect(calls.length / 100).toBeLessThanOrEqual(1.05)
  })

  it('costs 1 for an idempotent replay; a refusal the checked head decides costs no write', async () => {
    const issuer = await newIssuer({ pool: 1 })
    await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST) // warm; uses the pool
    const headers = { 'idempotency-key': 'replay-me' }
    await postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.LIVE, grantBody(), headers)
    const replay = await roundTrips(async () => {
      const call = await postGrant(
        api.baseUrl,
        issuer.programs.LIVE,
        issuer.keys.LIVE,
        grantBody(),
        headers,
      )
      expect(call.headers.get('idempotent-replayed')).toBe('true')
    })
    expect(replay).toEqual(['TransactWriteItemsCommand'])
    // The LIVE program's head, checked by the replay a moment ago, refuses the TEST key: no call.
    const mismatch = await roundTrips(async () => {
      const call = await postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.TEST)
      expect(call.body.code).toBe('mode_mismatch')
    })
    expect(mismatch).toEqual([])
    // The pool is spent: one shard's write fails, a read of every shard finds the total short,
    // and a second read with every shard's version unchanged proves it (returned shares can make
    // slices grow: the double collect, docs/decisions/returning-shares.md).
    const exhausted = await roundTrips(async () => {
      const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
      expect(call.body.code).toBe('pool_exhausted')
    })
    expect(exhausted).toEqual([
      'TransactWriteItemsCommand',
      'BatchGetItemCommand',
      'BatchGetItemCommand',
    ])
    // Then known for CHECK_BOUND_MS: refused with no call at all.
    const again = await roundTrips(async () => {
      const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
      expect(call.body.code).toBe('pool_exhausted')
    })
    expect(again).toEqual([])
  })

  it('costs 0 for a missing or malformed key; an invalid body with a real key costs only the key check', async () => {
    const issuer = await newIssuer()
    const valid = issuer.keys.TEST
    for (const key of [undefined, 'nonsense', `${valid.slice(0, -2)}zz`]) {
      expect(await roundTrips(() => postGrant(api.baseUrl, issuer.programs.TEST, key))).toEqual([])
    }
    // A real key's request counts against its rate limit (issue 33) before its body is read: the
    // key's check (with the program's head, one read when not cached) and nothing written.
    expect(
      await roundTrips(() =>
        postGrant(api.baseUrl, issuer.programs.TEST, valid, grantBody({ amount: 0 })),
      ),
    ).toEqual(['BatchGetItemCommand'])
    expect(
      await roundTrips(() =>
        postGrant(api.baseUrl, issuer.programs.TEST, valid, grantBody({ amount: 0 })),
      ),
    ).toEqual([])
  })

  it('refuses a revoked key once its check is CHECK_BOUND_MS old, with one read and no write', async () => {
    const issuer = await newIssuer()
    const key = await createKey({ issuerId: issuer.issuerId, mode: 'TEST' })
    await postGrant(api.baseUrl, issuer.programs.TEST, key.secret)
    await revokeKey(key.record.keyHash)
    advanceCheckClock(CHECK_BOUND_MS)
    const calls = await roundTrips(async () => {
      expect((await postGrant(api.baseUrl, issuer.programs.TEST, key.secret)).status).toBe(401)
    })
    expect(calls).toEqual(['BatchGetItemCommand'])
    // The revoked record is what the cache now holds: later attempts are refused with no call.
    expect(
      await roundTrips(() => postGrant(api.baseUrl, issuer.programs.TEST, key.secret)),
    ).toEqual([])
  })

  it('costs 1 for a GET once the key check is warm: the key and the grant in one BatchGetItem', async () => {
    const issuer = await newIssuer()
    const created = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
    const get = () =>
      roundTrips(async () => {
        const call = await request(api.baseUrl, 'GET', created.headers.get('location') as string, {
          headers: { 'x-api-key': issuer.keys.TEST },
        })
        expect(call.status).toBe(200)
      })
    // The first GET of this instance also checks the key for its rate limit (issue 33, at most
    // once per CHECK_BOUND_MS); the next is the one BatchGetItem.
    expect(await get()).toEqual(['GetItemCommand', 'BatchGetItemCommand'])
    expect(await get()).toEqual(['BatchGetItemCommand'])
  })
})
