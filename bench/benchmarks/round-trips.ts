/**
 * DynamoDB round trips of one grant: warm key (1), key not cached (2), malformed key (0), counted
 * by the bench's meter on the handler's own client; the key's rate-limit leases, sent in the
 * background (core/rate-limiter.ts), are counted apart, each grant's once they have settled.
 */
import { allLeasesSettled } from '../../functions/core/rate-limiter'
import type { Benchmark } from '../support/benchmark'
import type { Database } from '../support/context'

export const benchmark: Benchmark = {
  title: 'round trips',
  resultPath: ['roundTrips'],
  run: async (bench) => {
    const db = await bench.database()
    const { secret: coldKey } = await db.admin.createKey({ issuer: db.issuerId, mode: 'TEST' })
    const leases: number[] = []
    const trips = async (event: ReturnType<Database['grantEvent']>, expectCreated = true) => {
      await allLeasesSettled()
      db.meter.calls = []
      db.meter.leases = []
      const result = await db.grantHandler(event, db.context)
      if (expectCreated && result.statusCode !== 201) throw new Error(result.body)
      const calls = [...db.meter.calls]
      await allLeasesSettled()
      leases.push(db.meter.leases.length)
      return calls
    }
    const cold = await trips(db.grantEvent(coldKey))
    const warm = await trips(db.grantEvent(coldKey))
    const malformed = await trips(
      db.grantEvent(`${coldKey.slice(0, -1)}${coldKey.endsWith('A') ? 'B' : 'A'}`),
      false,
    )
    return {
      result: { cold, warm, malformed, leases },
      rows: [
        {
          metric: 'round trips, warm key',
          value: String(warm.length),
          target: '1',
          met: warm.length === 1,
        },
        {
          metric: 'round trips, key not cached',
          value: String(cold.length),
          target: '2',
          met: cold.length === 2,
        },
        {
          // Off the request path: the answer never waits for one (a key under its limit is
          // admitted on credit while its lease flies); at most one per grant.
          metric: 'background leases per grant',
          value: leases.join(', '),
          target: '≤ 1 each, off the request path',
          met: leases.every((n) => n <= 1),
        },
        {
          metric: 'round trips, malformed key',
          value: String(malformed.length),
          target: '0',
          met: malformed.length === 0,
        },
      ],
    }
  },
}
