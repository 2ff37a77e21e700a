import { grantBody, newIssuer, postGrant, programState } from '../support/api'
import { useApi } from '../support/api-harness'

const api = useApi()

/**
 * What the contract tells integrators to do: on a retryable answer (409 request_conflict, 503),
 * send the same request again with the same Idempotency-Key.
 */
const grantWithRetries = async (...args: Parameters<typeof postGrant>) => {
  for (let attempt = 0; ; attempt++) {
    const call = await postGrant(...args)
    const retryable = call.status === 503 || call.body.code === 'request_conflict'
    if (!retryable || attempt === 20) return { ...call, attempts: attempt + 1 }
    await new Promise((r) => setTimeout(r, Math.random() * 50))
  }
}

describe('concurrency', () => {
  it('50 parallel requests with one Idempotency-Key make exactly one grant', async () => {
    const issuer = await newIssuer({ pool: 1_000 })
    const headers = { 'idempotency-key': `burst-${Math.random()}` }
    const calls = await Promise.all(
      Array.from({ length: 50 }, () =>
        grantWithRetries(
          api.baseUrl,
          issuer.programs.TEST,
          issuer.keys.TEST,
          grantBody({ amount: 7 }),
          headers,
        ),
      ),
    )
    expect(calls.map((c) => c.status)).toEqual(Array(50).fill(201))
    expect(new Set(calls.map((c) => c.body.id)).size).toBe(1)
    expect(calls.filter((c) => c.headers.get('idempotent-replayed') === null)).toHaveLength(1)
    const state = await programState(issuer.programs.TEST)
    expect(state.grants).toHaveLength(1)
    expect(state.issued).toBe(7)
  })

  it('more concurrent grants than the pool allows leave issued == pool exactly', async () => {
    const pool = 12
    const issuer = await newIssuer({ pool })
    const calls = await Promise.all(
      Array.from({ length: 48 }, (_, i) =>
        grantWithRetries(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, grantBody(), {
          'idempotency-key': `oversubscribe-${i}`,
        }),
      ),
    )
    const granted = calls.filter((c) => c.status === 201)
    const exhausted = calls.filter((c) => c.status === 409 && c.body.code === 'pool_exhausted')
    expect(granted).toHaveLength(pool)
    expect(exhausted).toHaveLength(48 - pool)
    const state = await programState(issuer.programs.TEST)
    expect(state.grants).toHaveLength(pool)
    expect(state.issued).toBe(pool)
    expect(state.program?.remaining).toBe(0)
  })

  it('concurrent grants on one program lose no counter update', async () => {
    const issuer = await newIssuer()
    const amounts = Array.from({ length: 40 }, (_, i) => (i % 5) + 1)
    const calls = await Promise.all(
      amounts.map((amount, i) =>
        grantWithRetries(
          api.baseUrl,
          issuer.programs.LIVE,
          issuer.keys.LIVE,
          grantBody({ amount }),
          {
            'idempotency-key': `parallel-${i}`,
          },
        ),
      ),
    )
    expect(calls.map((c) => c.status)).toEqual(Array(40).fill(201))
    const state = await programState(issuer.programs.LIVE)
    expect(state.grants).toHaveLength(40)
    expect(state.issued).toBe(amounts.reduce((a, b) => a + b, 0))
  })
})
