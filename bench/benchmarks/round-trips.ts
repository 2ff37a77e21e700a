/**
 * DynamoDB round trips of one grant: warm key (1), key not cached (2), malformed key (0), counted
 * by the bench's meter on the handler's own client.
 */
import type { Benchmark } from '../support/benchmark'
import type { Database } from '../support/context'

export const benchmark: Benchmark = {
  title: 'round trips',
  resultPath: ['roundTrips'],
  run: async (bench) => {
    const db = await bench.database()
    const { secret: coldKey } = await db.admin.createKey({ issuer: db.issuerId, mode: 'TEST' })
    const trips = async (event: ReturnType<Database['grantEvent']>, expectCreated = true) => {
      db.meter.calls = []
      const result = await db.grantHandler(event, db.context)
      if (expectCreated && result.statusCode !== 201) throw new Error(result.body)
      return [...db.meter.calls]
    }
    const cold = await trips(db.grantEvent(coldKey))
    const warm = await trips(db.grantEvent(coldKey))
    const malformed = await trips(
      db.grantEvent(`${coldKey.slice(0, -1)}${coldKey.endsWith('A') ? 'B' : 'A'}`),
      false,
    )
    return {
      result: { cold, warm, malformed },
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
          metric: 'round trips, malformed key',
          value: String(malformed.length),
          target: '0',
          met: malformed.length === 0,
        },
      ],
    }
  },
}
