import { TransactionConflictException } from '@aws-sdk/client-dynamodb'
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { Backoff } from '../../functions/runtime/retry'
import * as RETRY from '../../functions/runtime/retry-policies'
import { type TransactItem, transact } from '../../functions/stores/kernel/transact'
import { cancelled, meta } from '../support/sdk-errors'

/**
 * The one transaction runner (stores/kernel/transact.ts) over a client that answers from a script:
 * what it reports, how often it sends, and the waits of its policy on an injected sleep.
 */

/** A client whose sends fail with the script's errors, one a send, then succeed. */
const scripted = (...errors: Error[]) => {
  const sent: unknown[] = []
  const client = {
    send: async (command: { input: unknown }) => {
      sent.push(command.input)
      const error = errors.shift()
      if (error) throw error
      return {}
    },
  } as unknown as DynamoDBDocumentClient
  return { client, sent }
}

const items: TransactItem[] = [
  {
    ConditionCheck: {
      TableName: 't',
      Key: { id: 'a' },
      ConditionExpression: 'attribute_exists(id)',
    },
  },
  { Put: { TableName: 't', Item: { id: 'b' } } },
]

/** Waits recorded on a virtual clock, not waited. */
const virtual = () => {
  let now = 0
  const waits: number[] = []
  return {
    waits,
    deps: {
      now: () => now,
      random: () => 1,
      sleep: async (ms: number) => {
        waits.push(ms)
        now += ms
      },
    },
  }
}

const policy: Backoff = { attempts: 4, baseDelayMs: 10, maxDelayMs: 40, jitter: 'full' }

describe('transact', () => {
  it('done: one send, nothing else', async () => {
    const { client, sent } = scripted()
    expect(await transact(client, items)).toEqual({ kind: 'done' })
    expect(sent).toEqual([{ TransactItems: items }])
  })

  it('failed: the first failed item by index and name, every failed index, the reasons; never retried', async () => {
    const error = cancelled('None', 'ConditionalCheckFailed')
    const { client, sent } = scripted(error)
    const clock = virtual()
    const outcome = await transact(client, items, {
      ...clock.deps,
      policy,
      retryOn: ['conflict', 'throttled'],
      names: ['issuer', 'program'],
    })
    expect(outcome).toEqual({
      kind: 'failed',
      index: 1,
      name: 'program',
      failed: [1],
      reasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed' }],
      cause: error,
    })
    expect(sent).toHaveLength(1)
    expect(clock.waits).toEqual([])
  })

  it('a refusal it is not told to retry: unavailable after the one send (RETRY.once by default)', async () => {
    const throttle = cancelled('ThrottlingError', 'None')
    const { client, sent } = scripted(throttle)
    expect(await transact(client, items)).toEqual({
      kind: 'unavailable',
      reason: 'throttled',
      attempts: 1,
      elapsedMs: expect.any(Number),
      cause: throttle,
    })
    expect(sent).toHaveLength(RETRY.once.attempts)
  })

  it('conflicts retried under the policy, then done', async () => {
    const { client, sent } = scripted(
      cancelled('TransactionConflict', 'None'),
      new TransactionConflictException({ message: 'Transaction is ongoing', ...meta }),
    )
    const clock = virtual()
    const outcome = await transact(client, items, { ...clock.deps, policy, retryOn: ['conflict'] })
    expect(outcome).toEqual({ kind: 'done' })
    expect(sent).toHaveLength(3)
    expect(clock.waits).toEqual([10, 20])
  })

  it('unavailable after the policy’s sends, with the attempts and the time they took', async () => {
    const last = cancelled('ProvisionedThroughputExceeded')
    const { client, sent } = scripted(
      cancelled('TransactionConflict'),
      cancelled('ThrottlingException'),
      cancelled('TransactionConflict'),
      last,
    )
    const clock = virtual()
    const outcome = await transact(client, items, {
      ...clock.deps,
      policy,
      retryOn: ['conflict', 'throttled'],
    })
    expect(outcome).toEqual({
      kind: 'unavailable',
      reason: 'throttled',
      attempts: 4,
      elapsedMs: 70,
      cause: last,
    })
    expect(sent).toHaveLength(policy.attempts)
    expect(clock.waits).toEqual([10, 20, 40])
  })

  it('a throttle among retried conflicts ends it when throttles are not retried', async () => {
    const { client, sent } = scripted(
      cancelled('TransactionConflict'),
      cancelled('ThrottlingError'),
    )
    const clock = virtual()
    const outcome = await transact(client, items, { ...clock.deps, policy, retryOn: ['conflict'] })
    expect(outcome).toMatchObject({ kind: 'unavailable', reason: 'throttled', attempts: 2 })
    expect(sent).toHaveLength(2)
  })

  it('anything else is thrown as it came', async () => {
    const invalid = Object.assign(new Error('One or more parameter values were invalid'), {
      name: 'ValidationException',
      ...meta,
    })
    await expect(transact(scripted(invalid).client, items)).rejects.toBe(invalid)
    const odd = cancelled('ValidationError')
    await expect(transact(scripted(odd).client, items)).rejects.toBe(odd)
  })
})
