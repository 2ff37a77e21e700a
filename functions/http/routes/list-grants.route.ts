import type { Runtime } from '../../composition'
import { makeListGrants } from '../../core/list-grants'
import { DynamoDbGrantReads } from '../../stores/grants.reads.dynamodb'
import { toGrantLifeResource } from '../grant-life-resource'
import { httpHandler, json } from '../http-handler'

/**
 * `GET /programs/{programId}/grants?recipient=&status=&cursor=&limit=` with `x-api-key`: the
 * program's grants, newest first, as the grant API shows a grant with its state (grant-life-resource.ts,
 * without the history: the GET of one grant has it).
 */
export const makeListGrantsHandler = (runtime: Runtime) => {
  const { tables, grantListIndex } = runtime.config
  const listGrants = makeListGrants({
    store: new DynamoDbGrantReads(runtime.documentClient, tables, grantListIndex),
    clock: () => runtime.clock.now(),
  })
  return httpHandler(async (event, deadline) => {
    const page = await listGrants({
      apiKey: event.headers['x-api-key'],
      programId: event.pathParameters?.programId,
      query: event.queryStringParameters,
      deadline,
    })
    return json(200, {
      object: 'list',
      data: page.items.map(toGrantLifeResource),
      nextCursor: page.nextCursor ?? null,
    })
  })
}
