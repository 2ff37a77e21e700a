import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb'
import {
  cancellationReasons,
  isConditionFailed,
  isConflict,
  isThrottle,
  isTransient,
  refusalOf,
} from '../../functions/stores/kernel/dynamodb-errors'
import { cancelled, meta } from '../support/sdk-errors'

/**
 * The one classifier of DynamoDB's refusals (stores/kernel/dynamodb-errors.ts), on errors built as
 * the SDK builds them.
 */

describe('the throttle names (error names and cancellation codes, one set)', () => {
  it.each([
    'ThrottlingError',
    'ThrottlingException',
    'ProvisionedThroughputExceeded',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
  ])('%s is a throttle', (name) => {
    expect(isThrottle(name)).toBe(true)
  })

  it.each(['ConditionalCheckFailed', 'TransactionConflict', 'None', undefined])(
    '%s is not',
    (code) => {
      expect(isThrottle(code)).toBe(false)
    },
  )
})

describe('plain errors', () => {
  it('a failed condition, a conflict, a throttle and a network error', () => {
    const condition = new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      ...meta,
    })
    const conflict = new TransactionConflictException({
      message: 'Transaction is ongoing',
      ...meta,
    })
    const throttle = new ProvisionedThroughputExceededException({ message: 'Too much', ...meta })
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })
    expect(isConditionFailed(condition)).toBe(true)
    expect(isConditionFailed(conflict)).toBe(false)
    expect(isConflict(conflict)).toBe(true)
    expect(
      isConflict(Object.assign(new Error('x'), { name: 'TransactionInProgressException' })),
    ).toBe(true)
    expect(isConflict(condition)).toBe(false)
    expect(isTransient(throttle)).toBe(true)
    expect(isTransient(reset)).toBe(true)
    expect(isTransient(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 503 } }))).toBe(
      true,
    )
    expect(isTransient(condition)).toBe(false)
    expect(isTransient('not an error')).toBe(false)
  })
})

describe('refusalOf: a cancelled transaction, most decisive first', () => {
  it('reads the reasons of a TransactionCanceledException only', () => {
    expect(cancellationReasons(cancelled('None', 'ConditionalCheckFailed'))).toEqual([
      { Code: 'None' },
      { Code: 'ConditionalCheckFailed' },
    ])
    expect(cancellationReasons(new Error('other'))).toBeUndefined()
  })

  it('a failed condition wins over a throttle and a conflict, with every failed index', () => {
    expect(
      refusalOf(
        cancelled(
          'ThrottlingError',
          'ConditionalCheckFailed',
          'TransactionConflict',
          'ConditionalCheckFailed',
        ),
      ),
    ).toMatchObject({ kind: 'condition', failed: [1, 3] })
  })

  it('a throttle (any of the names) wins over a conflict', () => {
    expect(refusalOf(cancelled('TransactionConflict', 'ThrottlingException'))).toEqual({
      kind: 'throttled',
    })
    expect(refusalOf(cancelled('None', 'ProvisionedThroughputExceeded'))).toEqual({
      kind: 'throttled',
    })
  })

  it('a conflict, as a reason or as an error of its own', () => {
    expect(refusalOf(cancelled('None', 'TransactionConflict'))).toEqual({ kind: 'conflict' })
    expect(
      refusalOf(new TransactionConflictException({ message: 'Transaction is ongoing', ...meta })),
    ).toEqual({ kind: 'conflict' })
  })

  it('anything else is the caller’s to throw', () => {
    expect(refusalOf(cancelled('ValidationError'))).toBeUndefined()
    expect(refusalOf(new Error('boom'))).toBeUndefined()
  })
})
