import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'

/** What a test stands in for: the command's name, its input, and the real send. */
export type Intercept = (
  command: string,
  input: Record<string, unknown>,
  next: () => Promise<unknown>,
) => Promise<unknown>

/**
 * Middleware on a test's own DynamoDB client, outside the SDK's retries, so a test can stand in
 * for what DynamoDB Local never does (a transaction conflict, keys left unprocessed, an index that
 * lags its table). Each call adds one; the returned stop removes it.
 */
export const interceptor = (client: DynamoDBClient) => (handler: Intercept) => {
  const name = `intercept-${Math.random()}`
  client.middlewareStack.add(
    (next, context) => async (args) =>
      handler(context.commandName ?? '', args.input as Record<string, unknown>, () =>
        next(args),
      ) as ReturnType<typeof next>,
    { step: 'initialize', name },
  )
  return () => client.middlewareStack.remove(name)
}
