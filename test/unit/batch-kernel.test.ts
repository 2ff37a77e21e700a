import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import * as RETRY from '../../functions/runtime/retry-policies'
import {
  batchGet,
  batchGetAll,
  batchGetByKey,
  batchWriteAll,
} from '../../functions/stores/kernel/batch'
import { StoreUnavailable } from '../../functions/stores/store-errors'

/**
 * The one unprocessed-keys loop (stores/kernel/batch.ts) over a client that plays DynamoDB from a
 * table in memory and leaves keys or items unprocessed as told; waits recorded, not waited.
 */
type Key = Record<string, unknown>
type Input = {
  RequestItems: Record<string, { Keys?: Key[] } | { PutRequest: { Item: Key } }[]>
}

const fakeDynamo = (leave: (sends: number, size: number) => number) => {
  const sizes: number[] = []
  const written: Key[] = []
  const client = {
    send: async (command: { input: Input; constructor: { name: string } }) => {
      const [table, asked] = Object.entries(command.input.RequestItems)[0] as [string, unknown]
      if (command.constructor.name === 'BatchGetCommand') {
        const { Keys = [], ...rest } = asked as { Keys: Key[] }
        sizes.push(Keys.length)
        const left = leave(sizes.length, Keys.length)
        const read = Keys.slice(0, Keys.length - left)
        return {
          Responses: { [table]: read.map((key) => ({ ...key, found: true })) },
          UnprocessedKeys:
            left === 0 ? {} : { [table]: { ...rest, Keys: Keys.slice(read.length) } },
        }
      }
      const puts = asked as { PutRequest: { Item: Key } }[]
      sizes.push(puts.length)
      const left = leave(sizes.length, puts.length)
      written.push(...puts.slice(0, puts.length - left).map((p) => p.PutRequest.Item))
      // DynamoDB answers copies, not the objects sent.
      const unprocessed = puts.slice(puts.length - left).map((p) => structuredClone(p))
      return { UnprocessedItems: left === 0 ? {} : { [table]: unprocessed } }
    },
  } as unknown as DynamoDBDocumentClient
  return { client, sizes, written }
}

const recorded = () => {
  const waits: number[] = []
  return { waits, sleep: async (ms: number) => void waits.push(ms) }
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `id-${i}`)

describe('batchGet', () => {
  it('asks again for what was left, 20 ms doubling (RETRY.unprocessed), and finds every item', async () => {
    const { client, sizes } = fakeDynamo((sends) => (sends <= 2 ? 1 : 0))
    const { waits, sleep } = recorded()
    const found = await batchGet(
      client,
      { t: { Keys: ids(3).map((id) => ({ id })), ConsistentRead: true } },
      { sleep },
    )
    expect(found.t?.map((item) => item.id)).toEqual(['id-0', 'id-1', 'id-2'])
    expect(sizes).toEqual([3, 1, 1])
    expect(waits).toEqual([20, 40])
  })

  it("gives up after RETRY.unprocessed's sends with the store's throttled failure", async () => {
    const { client, sizes } = fakeDynamo(() => 1)
    const { waits, sleep } = recorded()
    const read = batchGet(client, { t: { Keys: [{ id: 'a' }] } }, { sleep })
    await expect(read).rejects.toBeInstanceOf(StoreUnavailable)
    await expect(read).rejects.toMatchObject({ reason: 'throttled' })
    expect(sizes).toHaveLength(RETRY.unprocessed.attempts)
    expect(waits).toEqual([20, 40, 80, 160])
  })

  it('a named policy of its own, with jitter on an injected random', async () => {
    const { client, sizes } = fakeDynamo(() => 1)
    const { waits, sleep } = recorded()
    const policy = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 'full' } as const
    await expect(
      batchGet(client, { t: { Keys: [{ id: 'a' }] } }, { sleep, random: () => 0.5, policy }),
    ).rejects.toMatchObject({ reason: 'throttled' })
    expect(sizes).toEqual([1, 1, 1])
    expect(waits).toEqual([50, 100])
  })
})

describe('batchGetAll and batchGetByKey', () => {
  it('100 keys a call, each call its own tries; repeats read once, one call after the other', async () => {
    const { client, sizes } = fakeDynamo((sends) => (sends === 1 ? 10 : 0))
    const { sleep } = recorded()
    const found = await batchGetByKey(client, 't', 'id', [...ids(250), 'id-0'], { sleep })
    expect(found).toHaveLength(250)
    expect(sizes).toEqual([100, 10, 100, 50])
  })

  it('up to `parallel` calls in flight, the projection asked of each', async () => {
    const asked: unknown[] = []
    const client = {
      send: async (command: { input: Input }) => {
        asked.push(command.input.RequestItems.t)
        return { Responses: { t: [] }, UnprocessedKeys: {} }
      },
    } as unknown as DynamoDBDocumentClient
    await batchGetAll(
      client,
      't',
      ids(450).map((id) => ({ id })),
      { projection: { ProjectionExpression: 'id' } },
    )
    expect(asked).toHaveLength(5)
    expect(asked[0]).toMatchObject({ ConsistentRead: true, ProjectionExpression: 'id' })
  })
})

describe('batchWriteAll', () => {
  const puts = (n: number) => ids(n).map((id) => ({ PutRequest: { Item: { id } } }))

  it('25 items a call, what was left written again, nothing left', async () => {
    const { client, sizes, written } = fakeDynamo((sends) => (sends === 1 ? 5 : 0))
    const { waits, sleep } = recorded()
    expect(await batchWriteAll(client, 't', puts(30), { sleep })).toEqual([])
    expect(sizes).toEqual([25, 5, 5])
    expect(waits).toEqual([20])
    expect(written).toHaveLength(30)
  })

  it('answers what is still unwritten after the policy, and goes on with the next call', async () => {
    const { client, sizes } = fakeDynamo((sends) => (sends <= RETRY.unprocessed.attempts ? 1 : 0))
    const { sleep } = recorded()
    const left = await batchWriteAll(client, 't', puts(26), { sleep })
    expect(left).toEqual([{ PutRequest: { Item: { id: 'id-24' } } }])
    expect(sizes).toEqual([25, 1, 1, 1, 1, 1])
  })

  it('a send that throws: thrown, unless failedSend asks for another try', async () => {
    let sends = 0
    const client = {
      send: async () => {
        sends++
        if (sends === 1) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' })
        return { UnprocessedItems: {} }
      },
    } as unknown as DynamoDBDocumentClient
    const { sleep } = recorded()
    await expect(batchWriteAll(client, 't', puts(1), { sleep })).rejects.toThrow('reset')
    sends = 0
    const seen: unknown[] = []
    const left = await batchWriteAll(client, 't', puts(1), {
      sleep,
      failedSend: (error) => seen.push(error) > 0,
    })
    expect(left).toEqual([])
    expect(seen).toHaveLength(1)
    expect(sends).toBe(2)
  })
})
