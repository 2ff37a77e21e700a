import type { CancellationReason } from '@aws-sdk/client-dynamodb'
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb'
import { type Backoff, type RetryDeps, retrying } from '../../runtime/retry'
import * as RETRY from '../../runtime/retry-policies'
import { refusalOf } from './dynamodb-errors'

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number]

/**
 * What became of a transaction:
 * - `done`: written;
 * - `failed`: a condition failed (nothing written); `index` (and `name`, when the items were
 *   named) is the first such item, `failed` every one, `reasons` DynamoDB's per item;
 * - `unavailable`: throttled, or another transaction held an item, after `attempts` sends.
 * Anything else DynamoDB or the SDK throws (a validation error, a plain throttle the SDK already
 * retried, an abort) is thrown as it came.
 */
export type TransactOutcome =
  | { kind: 'done' }
  | {
      kind: 'failed'
      index: number
      name: string | undefined
      failed: number[]
      reasons: CancellationReason[]
      cause: unknown
    }
  | {
      kind: 'unavailable'
      reason: 'throttled' | 'conflict'
      attempts: number
      elapsedMs: number
      cause: unknown
    }

export type TransactOptions = RetryDeps & {
  signal?: AbortSignal | undefined
  /** How often, how far apart; by default RETRY.once (one send). */
  policy?: Backoff
  /** The refusals sent again under `policy`; the others answer `unavailable` at once. */
  retryOn?: readonly ('throttled' | 'conflict')[]
  /** Names of the items, by position, for the `failed` outcome. */
  names?: readonly (string | undefined)[]
}

const DONE: TransactOutcome = { kind: 'done' }

/** A refusal worth another send; thrown between sends so that `retrying` paces them. */
class Refused extends Error {
  constructor(
    readonly reason: 'throttled' | 'conflict',
    override readonly cause: unknown,
  ) {
    super(reason)
  }
}

/**
 * The one transaction runner: one TransactWriteItems (exactly one round trip when it is
 * written), sent again for the refusals `retryOn` names under `policy`.
 */
export const transact = async (
  client: DynamoDBDocumentClient,
  items: TransactItem[],
  {
    signal,
    policy = RETRY.once,
    retryOn = [],
    names = [],
    now = Date.now,
    ...deps
  }: TransactOptions = {},
): Promise<TransactOutcome> => {
  const started = now()
  let attempts = 0
  try {
    return await retrying<TransactOutcome>(
      async () => {
        attempts++
        try {
          await client.send(new TransactWriteCommand({ TransactItems: items }), {
            abortSignal: signal,
          })
          return DONE
        } catch (error) {
          const refusal = refusalOf(error)
          if (refusal === undefined) throw error
          if (refusal.kind !== 'condition') throw new Refused(refusal.kind, error)
          const index = refusal.failed[0] as number
          const { failed, reasons } = refusal
          return { kind: 'failed', index, name: names[index], failed, reasons, cause: error }
        }
      },
      {
        ...deps,
        now,
        signal,
        backoff: policy,
        again: (error) => error instanceof Refused && retryOn.includes(error.reason),
      },
    )
  } catch (error) {
    if (!(error instanceof Refused)) throw error
    const elapsedMs = now() - started
    return { kind: 'unavailable', reason: error.reason, attempts, elapsedMs, cause: error.cause }
  }
}
