import { randomUUID } from 'node:crypto'
import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { RateLimiter } from '../../functions/core/rate-limiter'
import { emissionIntervalUs, msToUs } from '../../functions/domain/rate-limit'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { DynamoDbRateLeases, rateItemKey } from '../../functions/stores/rate-leases.dynamodb'
import { config, documentClient } from '../support/runtime'

/**
 * The GCRA leases (functions/stores/rate-leases.dynamodb.ts) on DynamoDB Local: one conditional
 * write grants what the shared bucket holds, concurrent leases never grant more than rate x time +
 * burst, and several limiters over it admit no more either. Time is the injected `now`.
 */
const store = new DynamoDbRateLeases(documentClient, config.tables)
const T0 = 1_900_000_000_000
const newKeyId = () => `key_${randomUUID().replaceAll('-', '')}`

describe('rate leases on DynamoDB Local', () => {
  it('grants a new key its burst and keeps one tat item, purged a day later', async () => {
    const keyId = newKeyId()
    const lease = await store.lease({ keyId, tokens: 30, limit: 10, burst: 20, now: T0 })
    expect(lease).toEqual({ granted: 20, tat: T0 + 2_000 })
    expect(await store.lease({ keyId, tokens: 1, limit: 10, burst: 20, now: T0 })).toEqual({
      granted: 0,
      tat: T0 + 2_000,
    })
    // 250 ms later two tokens are back (T = 100 ms); asked for five, it grants those two.
    expect(await store.lease({ keyId, tokens: 5, limit: 10, burst: 20, now: T0 + 250 })).toEqual({
      granted: 2,
      tat: T0 + 2_200,
    })
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: config.tables.apiKeys, Key: { keyHash: rateItemKey(keyId) } }),
    )
    expect(Item).toEqual({
      keyHash: rateItemKey(keyId),
      tat: msToUs(T0) + 22 * emissionIntervalUs(10),
      purgeAt: Math.ceil((T0 + 250) / 1000) + 86_400,
    })
    // Idle past its tat, the bucket is full again.
    expect(
      await store.lease({ keyId, tokens: 50, limit: 10, burst: 20, now: T0 + 60_000 }),
    ).toEqual({ granted: 20, tat: T0 + 62_000 })
  })

  it('starts over a bucket further ahead than its burst, which only a clock out of step writes', async () => {
    const keyId = newKeyId()
    // A clock a day ahead took the burst; at the right time the bucket is not a day in debt.
    const day = 86_400_000
    expect(await store.lease({ keyId, tokens: 20, limit: 10, burst: 20, now: T0 + day })).toEqual({
      granted: 20,
      tat: T0 + day + 2_000,
    })
    expect(await store.lease({ keyId, tokens: 5, limit: 10, burst: 20, now: T0 })).toEqual({
      granted: 5,
      tat: T0 + 500,
    })
    // Within the burst (and its slack) ahead is a bucket in use: nothing more now.
    expect(await store.lease({ keyId, tokens: 20, limit: 10, burst: 20, now: T0 })).toEqual({
      granted: 15,
      tat: T0 + 2_000,
    })
    expect(await store.lease({ keyId, tokens: 1, limit: 10, burst: 20, now: T0 })).toEqual({
      granted: 0,
      tat: T0 + 2_000,
    })
  })

  it('never grants more than the burst to leases racing at one moment', async () => {
    const keyId = newKeyId()
    const leases = await Promise.all(
      Array.from({ length: 12 }, () =>
        store.lease({ keyId, tokens: 4, limit: 10, burst: 20, now: T0 }),
      ),
    )
    const granted = leases.reduce((sum, l) => sum + (l === 'unavailable' ? 0 : l.granted), 0)
    expect(granted).toBeLessThanOrEqual(20)
    expect(granted).toBeGreaterThan(0)
  })

  it('keeps several limiters over it within rate x time + burst', async () => {
    const keyId = newKeyId()
    const clock = { now: T0 }
    const limiters = Array.from(
      { length: 6 },
      () => new RateLimiter({ leases: store, now: () => clock.now }),
    )
    const key = { keyId, mode: 'TEST' as const, rateLimit: 20 }
    let admitted = 0
    // 3 s at 3 requests per limiter per 20 ms (about 45x the limit); leases race each other.
    for (let ms = 0; ms < 3_000; ms += 20) {
      clock.now = T0 + ms
      for (const limiter of limiters) {
        for (let i = 0; i < 3; i++) if (limiter.take(key).allowed) admitted++
      }
      await Promise.all(limiters.map((l) => l.settled()))
    }
    // 20 a second for 3 s and the burst of 40, from the shared bucket.
    // Admitted on credit while a lease is in flight: at most a tick's takes per limiter.
    expect(admitted).toBeLessThanOrEqual(20 * 3 + 40 + 3 * limiters.length)
    expect(admitted).toBeGreaterThanOrEqual(20 * 3)
  })

  it("answers 'unavailable' when DynamoDB throttles or is away", async () => {
    const client = createDynamoDbClient({ endpoint: config.dynamodbEndpoint })
    client.middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('throttled'), { name: 'ThrottlingException' })
      },
      { step: 'initialize', name: 'throttle-everything' },
    )
    const away = new DynamoDbRateLeases(createDocumentClient(client), config.tables)
    expect(await away.lease({ keyId: newKeyId(), tokens: 1, limit: 10, burst: 20, now: T0 })).toBe(
      'unavailable',
    )
    client.destroy()
  })
})
