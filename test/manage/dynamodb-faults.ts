import { randomUUID } from 'node:crypto'
import { dynamodb } from '../support/runtime'

/** DynamoDB throttling: the routes answer 503 service_unavailable. */
export const THROTTLED = 'ProvisionedThroughputExceededException'
/** A failure no one planned for: the routes answer 500 internal_error, naming nothing inside. */
export const UNEXPECTED = 'ValidationException'

/**
 * Runs `act` while the functions' DynamoDB client (the one the local server's handlers use,
 * test/support/runtime.ts) throws the error `name` for the commands listed (`QueryCommand`,
 * `TransactWriteItemsCommand`, ...), as the AWS SDK would; every other call goes through, so the
 * membership check passes and the route's own call fails.
 */
export const withDynamoDbFault = async <T>(
  name: string,
  commands: readonly string[],
  act: () => Promise<T>,
): Promise<T> => {
  const id = `dynamodb-fault-${randomUUID()}`
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      if (commands.includes(context.commandName ?? '')) {
        throw Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 } })
      }
      return next(args)
    },
    { step: 'initialize', name: id },
  )
  try {
    return await act()
  } finally {
    dynamodb.middlewareStack.remove(id)
  }
}
