import {
  countRoundTrips,
  createKey,
  grantBody,
  newIssuer,
  postGrant,
  request,
  revokeKey,
  startApi,
} from '../support/api'

let api: Awaited<ReturnType<typeof startApi>>
const counter = countRoundTrips()
beforeAll(async () => {
  api = await startApi()
})
afterAll(async () => {
  counter.stop()
  await api.close()
})

/** DynamoDB calls one HTTP request causes, counted by an SDK middleware (not by timing). */
const roundTrips = async (act: () => Promise<unknown>) => {
  counter.reset()
  await act()
  return [...counter.calls]
}

describe('DynamoDB round trips per request', () => {
  it('costs 2 for a key not yet cached, then 1 (a single TransactWriteItems)', async () => {
    const issuer = await newIssuer()
    const cold = await roundTrips(async () => {
      expect((await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)).status).toBe(
        201,
      )
    })
    expect(cold).toEqual(['GetItemCommand', 'TransactWriteItemsCommand'])
    const warm = await roundTrips(async () => {
      expect((await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)).status).toBe(
        201,
      )
    })
    expect(warm).toEqual(['TransactWriteItemsCommand'])
  })

  it('costs 1 for an idempotent replay and 1 to tell each refusal apart (no extra reads)', async () => {
    const issuer = await newIssuer({ pool: 1 })
    await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST) // warm the key; uses the pool
    const headers = { 'idempotency-key': 'replay-me' }
    await roundTrips(() =>
      postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.LIVE, grantBody(), headers),
    )
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
    const refusals = [
      [issuer.programs.TEST, 'pool_exhausted'],
      [issuer.programs.LIVE, 'mode_mismatch'],
    ] as const
    for (const [programId, code] of refusals) {
      const calls = await roundTrips(async () => {
        const call = await postGrant(api.baseUrl, programId, issuer.keys.TEST)
        expect(call.body.code).toBe(code)
      })
      expect(calls).toEqual(['TransactWriteItemsCommand'])
    }
  })

  it('costs 0 for a missing or malformed key, and for an invalid body', async () => {
    const issuer = await newIssuer()
    const valid = issuer.keys.TEST
    for (const key of [undefined, 'nonsense', `${valid.slice(0, -2)}zz`]) {
      expect(await roundTrips(() => postGrant(api.baseUrl, issuer.programs.TEST, key))).toEqual([])
    }
    expect(
      await roundTrips(() =>
        postGrant(api.baseUrl, issuer.programs.TEST, valid, grantBody({ amount: 0 })),
      ),
    ).toEqual([])
  })

  it('rejects a revoked key on the next request although it is cached, in the same round trip', async () => {
    const issuer = await newIssuer()
    const key = await createKey({ issuerId: issuer.issuerId, mode: 'TEST' })
    await postGrant(api.baseUrl, issuer.programs.TEST, key.secret)
    await revokeKey(key.record.keyHash)
    const calls = await roundTrips(async () => {
      expect((await postGrant(api.baseUrl, issuer.programs.TEST, key.secret)).status).toBe(401)
    })
    expect(calls).toEqual(['TransactWriteItemsCommand'])
    // Forgotten after the rejection: the next attempt looks the key up again and fails there.
    expect(
      await roundTrips(() => postGrant(api.baseUrl, issuer.programs.TEST, key.secret)),
    ).toEqual(['GetItemCommand'])
  })

  it('costs 1 for a GET: the key and the grant in one BatchGetItem', async () => {
    const issuer = await newIssuer()
    const created = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
    const calls = await roundTrips(async () => {
      const call = await request(api.baseUrl, 'GET', created.headers.get('location') as string, {
        headers: { 'x-api-key': issuer.keys.TEST },
      })
      expect(call.status).toBe(200)
    })
    expect(calls).toEqual(['BatchGetItemCommand'])
  })
})
