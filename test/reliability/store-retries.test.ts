import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb'
import { makeAdmin } from '../../functions/core/admin'
import { WriteConflictError } from '../../functions/domain/admin-errors'
import type { GrantRecord } from '../../functions/domain/grant'
import { newId } from '../../functions/domain/ids'
import * as RETRY from '../../functions/runtime/retry-policies'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import { batchGetByKey } from '../../functions/stores/batch-get'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { StoreUnavailable } from '../../functions/stores/store-errors'
import { config } from '../support/runtime'
import { interceptor } from '../support/sdk-intercept'

/**
 * The stores' retries on DynamoDB Local, with a client of the test's own whose middleware stands
 * in for what DynamoDB Local never does (keys left unprocessed, a transaction conflict), and
 * injected waits: what is sent again, how often, how long apart, and what the caller is told.
 */
const base = new DynamoDBClient({
  endpoint: config.dynamodbEndpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
})
const client = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true },
})
afterAll(() => base.destroy())

/** Middleware on the test's client (test/support/sdk-intercept.ts). */
const intercept = interceptor(base)

/** Waits recorded, not waited. */
const recordedSleep = () => {
  const waits: number[] = []
  return { waits, sleep: async (ms: number) => void waits.push(ms) }
}

type Keys = { Keys: Record<string, unknown>[] }

/**
 * The first `times` BatchGetItem sends are cut to their first key: DynamoDB Local reads that
 * one, and the rest come back as UnprocessedKeys, as DynamoDB answers a throttled read.
 */
const leaveUnprocessed = (times: number) => {
  const sent: number[] = []
  const stop = intercept(async (name, input, next) => {
    if (!name.startsWith('BatchGet')) return next()
    const items = input.RequestItems as Record<string, Keys>
    const [table, { Keys }] = Object.entries(items)[0] as [string, Keys]
    sent.push(Keys.length)
    if (sent.length > times) return next()
    const unprocessed = { [table]: { ...items[table], Keys: Keys.slice(1) } }
    if (Keys.length === 1) {
      // Nothing read at all: the one key comes back.
      return { output: { Responses: {}, UnprocessedKeys: items, $metadata: {} }, response: {} }
    }
    input.RequestItems = { [table]: { ...items[table], Keys: Keys.slice(0, 1) } }
    const answer = (await next()) as { output: Record<string, unknown> }
    answer.output.UnprocessedKeys = unprocessed
    return answer
  })
  return { sent, stop }
}

const putGrants = async (count: number, prefix: string) => {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`)
  for (const grantId of ids) {
    await client.send(new PutCommand({ TableName: config.tables.grants, Item: { grantId } }))
  }
  return ids
}

describe('BatchGetItem, shared by the grant and grant-life stores (stores/batch-get.ts)', () => {
  it('asks again for the keys left unprocessed, with a doubling wait, and finds every item', async () => {
    const ids = await putGrants(150, `bg-${process.pid}-a`)
    const { waits, sleep } = recordedSleep()
    const { sent, stop } = leaveUnprocessed(3)
    try {
      const found = await batchGetByKey(
        client,
        config.tables.grants,
        'grantId',
        [...ids, ids[0] as string],
        { sleep },
      )
      expect(found.map((item) => item.grantId).sort()).toEqual(ids)
    } finally {
      stop()
    }
    // 100 keys a request (repeats read once): the first request loses all but one key three
    // times, then the rest of the first hundred, then the second request's 50.
    expect(sent).toEqual([100, 99, 98, 97, 50])
    expect(waits).toEqual([20, 40, 80])
  })

  it("gives up after 5 sends with the store's throttled failure", async () => {
    const ids = await putGrants(3, `bg-${process.pid}-b`)
    const { waits, sleep } = recordedSleep()
    const { sent, stop } = leaveUnprocessed(Number.POSITIVE_INFINITY)
    try {
      const read = batchGetByKey(client, config.tables.grants, 'grantId', ids, { sleep })
      await expect(read).rejects.toBeInstanceOf(StoreUnavailable)
      await expect(read).rejects.toMatchObject({ reason: 'throttled' })
    } finally {
      stop()
    }
    expect(sent).toEqual([3, 2, 1, 1, 1])
    expect(waits).toEqual([20, 40, 80, 160])
  })
})

const cancelledForConflict = () =>
  new TransactionCanceledException({
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'TransactionConflict' }],
  })
const conflictException = () =>
  Object.assign(new Error('Transaction is ongoing for the item'), {
    name: 'TransactionConflictException',
    $metadata: { httpStatusCode: 400 },
  })

/** The first `times` sends of TransactWriteItems fail with `error()`; the rest reach DynamoDB Local. */
const failFirst = (times: number, error: () => Error) => {
  const sent = { failed: 0, passed: 0 }
  const stop = intercept(async (name, _input, next) => {
    if (!name.startsWith('TransactWrite')) return next()
    if (sent.failed < times) {
      sent.failed++
      throw error()
    }
    sent.passed++
    return next()
  })
  return { sent, stop }
}

describe('one retry (runtime/retry.ts) for the grant-life and admin stores, its waits injected', () => {
  const openGrant = async () => {
    const grant = { grantId: newId('grant'), status: 'reserved' } as GrantRecord
    await client.send(new PutCommand({ TableName: config.tables.grants, Item: grant }))
    return grant
  }
  const offerOf = async (grantId: string) =>
    (
      await client.send(
        new GetCommand({ TableName: config.tables.grants, Key: { grantId }, ConsistentRead: true }),
      )
    ).Item?.offer

  it('a grant-life change cancelled for a conflict is sent again, 40 to 160 ms apart (full jitter)', async () => {
    const { waits, sleep } = recordedSleep()
    const store = new DynamoDbGrantLifeStore(client, config.tables, { sleep, random: () => 0.5 })
    const grant = await openGrant()
    const { sent, stop } = failFirst(3, cancelledForConflict)
    try {
      expect(await store.requestResend(grant, { now: Date.now(), minGapMs: 1 })).toBe('done')
    } finally {
      stop()
    }
    expect(sent).toEqual({ failed: 3, passed: 1 })
    expect(waits).toEqual([20, 40, 80])
    expect(await offerOf(grant.grantId)).toMatchObject({ resendRequestedAt: expect.any(String) })
  })

  it('after RETRY.grantLifeWrite.attempts cancellations: unavailable, nothing written; a lone conflict error is thrown', async () => {
    const { waits, sleep } = recordedSleep()
    const store = new DynamoDbGrantLifeStore(client, config.tables, { sleep, random: () => 1 })
    const grant = await openGrant()
    const cancelled = failFirst(Number.POSITIVE_INFINITY, cancelledForConflict)
    try {
      expect(await store.requestResend(grant, { now: Date.now(), minGapMs: 1 })).toBe('unavailable')
    } finally {
      cancelled.stop()
    }
    expect(cancelled.sent.failed).toBe(RETRY.grantLifeWrite.attempts)
    expect(waits).toEqual([40, 80, 160])
    const plain = failFirst(Number.POSITIVE_INFINITY, conflictException)
    try {
      await expect(
        store.requestResend(grant, { now: Date.now(), minGapMs: 1 }),
      ).rejects.toMatchObject({ name: 'TransactionConflictException' })
    } finally {
      plain.stop()
    }
    expect(plain.sent.failed).toBe(RETRY.grantLifeWrite.attempts)
    expect(await offerOf(grant.grantId)).toBeUndefined()
  })

  it('an admin write in conflict is sent again (equal jitter), then told as the change that was asked', async () => {
    const { waits, sleep } = recordedSleep()
    const retry = { attempts: 5, baseDelayMs: 50, maxDelayMs: 150 }
    const store = new DynamoDbAdminStore(client, config.tables, {
      conflictRetry: retry,
      sleep,
      random: () => 0,
    })
    const admin = makeAdmin(store)
    const first = failFirst(4, cancelledForConflict)
    try {
      expect((await admin.createIssuer({ name: 'Retried' })).issuerId).toMatch(/^iss_/)
    } finally {
      first.stop()
    }
    expect(first.sent).toEqual({ failed: 4, passed: 1 })
    // Half of each doubling delay is fixed: 25, 50, 75 (150 at most), 75.
    expect(waits).toEqual([25, 50, 75, 75])
    const always = failFirst(Number.POSITIVE_INFINITY, conflictException)
    try {
      const refused = admin.createIssuer({ name: 'Never' })
      await expect(refused).rejects.toBeInstanceOf(WriteConflictError)
      await expect(refused).rejects.toMatchObject({ attempts: 5, change: 'Creating the issuer' })
    } finally {
      always.stop()
    }
    expect(always.sent.failed).toBe(5)
  })
})
