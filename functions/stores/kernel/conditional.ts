import { isConditionFailed } from './dynamodb-errors'

/**
 * One conditional write (Put, Update, Delete): its output, or undefined when its condition failed
 * (nothing written). Any other failure is thrown as it came.
 */
export const conditional = async <T>(write: Promise<T>): Promise<T | undefined> => {
  try {
    return await write
  } catch (error) {
    if (isConditionFailed(error)) return undefined
    throw error
  }
}
