import { newIssuer, programState, startApi } from '../support/api'
import { injectFaults, seededRandom } from '../support/fault-injector'
import { type GrantOutcome, grantWithRetries, pool } from '../support/retrying-client'
import { dynamodb } from '../support/runtime'

/**
 * Exactly once under faults. Integrators retry; 30% of DynamoDB calls fail (before the database,
 * after a commit whose answer is lost, or throttled). Afterwards the database, read directly,
 * must hold every acknowledged grant exactly once and counters that add up.
 * `npm test` runs 300 grants; `npm run test:faults` runs FAULT_GRANTS=2000.
 */
const GRANTS = Number(process.env.FAULT_GRANTS ?? 300)
const FAULT_RATE = 0.3
const SEED = Number(process.env.FAULT_SEED ?? 20261125)

let api: Awaited<ReturnType<typeof startApi>>
beforeAll(async () => {
  api = await startApi()
})
afterAll(() => api.close())

it(`stores ${GRANTS} grants exactly once with ${FAULT_RATE * 100}% of DynamoDB calls failing`, async () => {
  const [a, b, c] = await Promise.all([newIssuer(), newIssuer(), newIssuer({ pool: 60 })])
  // Three programs without a limit, and one with a pool that the run is sure to exhaust.
  const targets = [
    { programId: a.programs.TEST, key: a.keys.TEST },
    { programId: a.programs.LIVE, key: a.keys.LIVE },
    { programId: b.programs.LIVE, key: b.keys.LIVE },
    { programId: c.programs.TEST, key: c.keys.TEST, pool: 60 },
  ]
  const random = seededRandom(SEED)
  const requests = Array.from({ length: GRANTS }, (_, i) => {
    const target = targets[
      random() < 0.1 ? 3 : Math.floor(random() * 3)
    ] as (typeof targets)[number]
    return {
      ...target,
      amount: 1 + Math.floor(random() * 10),
      email: `recipient-${i % 97}@example.com`,
      idempotencyKey: `exactly-once-${SEED}-${i}`,
    }
  })

  const faults = injectFaults(dynamodb, { rate: FAULT_RATE, seed: SEED })
  let outcomes: GrantOutcome[]
  try {
    outcomes = await pool(
      requests.map(
        (r) => () => grantWithRetries(api.baseUrl, r.programId, r.key, r, r.idempotencyKey),
      ),
      16,
    )
  } finally {
    faults.stop()
  }

  const byKey = new Map(
    requests.map((r, i) => [
      r.idempotencyKey,
      { request: r, outcome: outcomes[i] as GrantOutcome },
    ]),
  )
  const acknowledged = outcomes.filter((o) => o.status === 201)
  const exhausted = outcomes.filter((o) => o.body.code === 'pool_exhausted')
  // Every request ends in a definite answer: a grant, or a refusal for the small pool.
  expect(outcomes.filter((o) => o.status !== 201 && o.body.code !== 'pool_exhausted')).toEqual([])

  const stored = (await Promise.all(targets.map((t) => programState(t.programId)))).flatMap(
    (s) => s.grants,
  )
  const perKey = new Map<string, number>()
  for (const g of stored)
    perKey.set(g.idempotencyKey ?? '', (perKey.get(g.idempotencyKey ?? '') ?? 0) + 1)

  // Exactly one grant per acknowledged Idempotency-Key, none for a refused one.
  expect([...perKey.values()].filter((n) => n !== 1)).toEqual([])
  expect(new Set(perKey.keys())).toEqual(new Set(acknowledged.map((o) => o.idempotencyKey)))
  // Every acknowledged grant is stored as it was acknowledged.
  const storedById = new Map(stored.map((g) => [g.grantId, g]))
  for (const o of acknowledged) {
    const g = storedById.get(o.body.id as string)
    expect(g).toBeDefined()
    expect({ amount: g?.amount, key: g?.idempotencyKey, program: g?.programId }).toEqual({
      amount: byKey.get(o.idempotencyKey)?.request.amount,
      key: o.idempotencyKey,
      program: byKey.get(o.idempotencyKey)?.request.programId,
    })
  }
  // Amounts and counters add up, program by program; the pool is never overdrawn.
  const requestedAcked = acknowledged.reduce(
    (sum, o) => sum + (byKey.get(o.idempotencyKey)?.request.amount ?? 0),
    0,
  )
  expect(stored.reduce((sum, g) => sum + g.amount, 0)).toBe(requestedAcked)
  const figures = []
  for (const t of targets) {
    const state = await programState(t.programId)
    const sum = state.grants.reduce((s, g) => s + g.amount, 0)
    expect(state.issued).toBe(sum)
    if (t.pool !== undefined) {
      expect(state.issued).toBeLessThanOrEqual(t.pool)
      expect(state.program?.remaining).toBe(t.pool - state.issued)
    }
    figures.push(
      `${t.programId}: ${state.grants.length} grants, issued ${state.issued} = sum ${sum}${t.pool ? ` (pool ${t.pool})` : ''}`,
    )
  }
  expect(exhausted.length).toBeGreaterThan(0)

  const attempts = outcomes.reduce((s, o) => s + o.attempts, 0)
  process.stdout.write(
    [
      '',
      `exactly-once run: ${GRANTS} logical grants, fault rate ${FAULT_RATE}, seed ${SEED}`,
      `  DynamoDB calls ${faults.stats.calls}; injected: before ${faults.stats.before}, lost response ${faults.stats['lost-response']}, throttle ${faults.stats.throttle}`,
      `  HTTP attempts ${attempts} (${(attempts / GRANTS).toFixed(2)} per grant); acknowledged ${acknowledged.length} (${acknowledged.filter((o) => o.replayed).length} as replays); pool_exhausted ${exhausted.length}`,
      `  stored ${stored.length} grants, ${perKey.size} distinct keys, duplicates 0; amount stored ${requestedAcked} = acknowledged ${requestedAcked}`,
      ...figures.map((f) => `  ${f}`),
      '',
    ].join('\n'),
  )
  expect(faults.stats['lost-response']).toBeGreaterThan(0)
})
