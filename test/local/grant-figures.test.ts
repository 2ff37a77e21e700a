import { DynamoDbFiguresStore } from '../../functions/stores/figures.dynamodb'
import type { HoldersPage } from '../../functions/stores/figures.store'
import { makeGrantFiguresHandler } from '../../functions/wiring/grant-figures.consumer'
import {
  figuresOfGrants,
  grantLives,
  lambdaRecordOfWrite,
  streamOrder,
} from '../support/figures-grants'
import { config, documentClient, dynamodb, runtime, wallClock } from '../support/runtime'
import { interceptor } from '../support/sdk-intercept'

/**
 * GrantFigures, the grants stream's second reader (wiring/grant-figures.consumer.ts), over
 * DynamoDB Local: a batch whose figures write fails answers the first record with a figure change
 * in stream order (not a record before it that has none); Lambda's retry from there counts every
 * grant once, what went through before included.
 */

const handler = makeGrantFiguresHandler(runtime, { sleep: async () => {} })
const store = new DynamoDbFiguresStore(documentClient, config.tables, { clock: wallClock })

test('a failed figures write names the first failed record; the retry from it counts each grant once', async () => {
  const programId = `prog_figreader${Date.now().toString(36)}`
  const lives = grantLives(programId, 12, { seed: 7 })
  const writes = streamOrder(lives)
  // A link token's record first: no figure change, never the one to retry from.
  const token = {
    ...lambdaRecordOfWrite(writes[0] as (typeof writes)[number]),
    dynamodb: {
      Keys: { grantId: { S: 'offer-token#abc' } },
      NewImage: { grantId: { S: 'offer-token#abc' } },
      SequenceNumber: '000000000000000999999',
      StreamViewType: 'NEW_AND_OLD_IMAGES' as const,
    },
  }
  const records = [token, ...writes.map(lambdaRecordOfWrite)]
  // DynamoDB refuses every figures transaction, once: not a throttle, so no retry inside.
  let refuse = true
  const stop = interceptor(dynamodb)(async (command, _input, next) => {
    if (refuse && command === 'TransactWriteItemsCommand') {
      throw Object.assign(new Error('refused'), { name: 'ValidationException' })
    }
    return next()
  })
  try {
    const failed = await handler({ Records: records })
    expect(failed).toEqual({
      batchItemFailures: [{ itemIdentifier: writes[0]?.sequenceNumber }],
    })
    refuse = false
    const from = records.findIndex(
      (r) => r.dynamodb?.SequenceNumber === failed.batchItemFailures[0]?.itemIdentifier,
    )
    expect(await handler({ Records: records.slice(from) })).toEqual({ batchItemFailures: [] })
    // Delivered again whole (a retried invocation): counted nothing twice.
    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [] })
  } finally {
    stop()
  }
  const expected = figuresOfGrants(lives.map((l) => l.final))
  const page = (await store.holdersPage(programId, { limit: 100 })) as HoldersPage
  const byAddress = (a: { email: string }, b: { email: string }) => (a.email < b.email ? -1 : 1)
  expect([...page.items].sort(byAddress)).toEqual([...expected.holders].sort(byAddress))
})
