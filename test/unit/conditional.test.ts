import {
  ConditionalCheckFailedException,
  ProvisionedThroughputExceededException,
} from '@aws-sdk/client-dynamodb'
import { conditional } from '../../functions/stores/kernel/conditional'
import { meta } from '../support/sdk-errors'

/** stores/kernel/conditional.ts: a conditional write's output, or undefined when refused. */
describe('conditional', () => {
  it('answers the output of a write that was made', async () => {
    expect(await conditional(Promise.resolve({ Attributes: { id: 'a' } }))).toEqual({
      Attributes: { id: 'a' },
    })
  })

  it('answers undefined when the condition failed', async () => {
    const refused = new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      ...meta,
    })
    expect(await conditional(Promise.reject(refused))).toBeUndefined()
  })

  it('throws anything else as it came', async () => {
    const throttle = new ProvisionedThroughputExceededException({ message: 'Too much', ...meta })
    await expect(conditional(Promise.reject(throttle))).rejects.toBe(throttle)
  })
})
