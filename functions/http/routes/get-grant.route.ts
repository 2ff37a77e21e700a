import type { Runtime } from '../../composition'
import { makeGetGrant } from '../../core/get-grant'
import { DynamoDbGrantStore } from '../../stores/grants.dynamodb'
import { toGrantDetail } from '../grant-life-resource'
import { httpHandler, json } from '../http-handler'

/** The route's handler over any document client (tests hand it one that points at a dead socket). */
export const makeGetGrantHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const getGrant = makeGetGrant({
    store: new DynamoDbGrantStore(client, tables),
    clock: () => runtime.clock.now(),
  })
  return httpHandler(async (event, deadline) =>
    json(
      200,
      toGrantDetail(
        await getGrant({
          apiKey: event.headers['x-api-key'],
          programId: event.pathParameters?.programId,
          grantId: event.pathParameters?.grantId,
          deadline,
        }),
      ),
    ),
  )
}
