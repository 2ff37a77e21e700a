import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb'
import { batchGetByKey } from '../../functions/stores/batch-get'
import { StoreUnavailable } from '../../functions/stores/store-errors'
import { config } from '../support/runtime'

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

/** A middleware on the test's client, outside the SDK's retries; removed by the returned stop. */
const intercept = (
  handler: (
    command: string,
    input: Record<string, unknown>,
    next: () => Promise<unknown>,
  ) => Promise<unknown>,
) => {
  const name = `intercept-${Math.random()}`
  base.middlewareStack.add(
    (next, context) => async (args) =>
      handler(context.commandName ?? '', args.input as Record<string, unknown>, () =>
        next(args),
      ) as ReturnType<typeof next>,
    { step: 'initialize', name },
  )
  return () => base.middlewareStack.remove(name)
}

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
