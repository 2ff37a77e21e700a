import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'

export type FaultKind = 'before' | 'lost-response' | 'throttle'
export type FaultStats = { calls: number } & Record<FaultKind, number>

/** A small seeded PRNG (mulberry32), so a failing run can be replayed with the same faults. */
export const seededRandom = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Breaks a real DynamoDB client on purpose. At `rate`, a call:
 * - `before`: fails with a connection reset and never reaches the database;
 * - `lost-response`: reaches the database, which commits, and then the answer is lost (a
 *   timeout), the case that doubles grants in a naive service;
 * - `throttle`: is refused with ProvisionedThroughputExceededException.
 * It sits at the `initialize` step, outside the SDK's own retries, so every fault reaches the
 * handler and, through it, the caller. Tests switch it on; nothing else ever does.
 */
export const injectFaults = (
  client: DynamoDBClient,
  options: { rate: number; kinds?: FaultKind[]; seed?: number; commands?: string[] },
) => {
  const kinds = options.kinds ?? ['before', 'lost-response', 'throttle']
  const random = seededRandom(options.seed ?? 42)
  const stats: FaultStats = { calls: 0, before: 0, 'lost-response': 0, throttle: 0 }
  const name = `fault-injector-${Math.random()}`
  client.middlewareStack.add(
    (next, context) => async (args) => {
      stats.calls++
      const applies =
        options.commands === undefined || options.commands.includes(context.commandName ?? '')
      if (!applies || random() >= options.rate) return next(args)
      const kind = kinds[Math.floor(random() * kinds.length)] as FaultKind
      stats[kind]++
      switch (kind) {
        case 'before':
          throw Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET' })
        case 'throttle':
          throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
            name: 'ProvisionedThroughputExceededException',
            $fault: 'client',
            $metadata: { httpStatusCode: 400 },
          })
        case 'lost-response':
          await next(args)
          throw Object.assign(new Error('Request timed out after the write was sent'), {
            name: 'TimeoutError',
            code: 'ETIMEDOUT',
          })
      }
    },
    { step: 'initialize', name },
  )
  return { stats, stop: () => client.middlewareStack.remove(name) }
}
