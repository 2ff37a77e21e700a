import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { makeListGrants } from '../core/list-grants'
import { toGrantResource } from '../http/grant-resource'
import { httpHandler, json } from '../http/http-handler'
import { clock } from '../runtime/clock'
import { documentClient } from '../stores/dynamodb-client'
import type { TableNames } from '../stores/grants.dynamodb'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'
import type { GrantListIndex } from '../stores/table-schema'

/**
 * `GET /programs/{programId}/grants?recipient=&cursor=&limit=` with `x-api-key`: the program's
 * grants, newest first, as the grant API shows a grant.
 */
export const makeListGrantsHandler = (
  client: DynamoDBDocumentClient,
  tables: TableNames,
  listIndex: GrantListIndex = config.grantListIndex,
) => {
  const listGrants = makeListGrants({
    store: new DynamoDbGrantReads(client, tables, listIndex),
    clock: () => clock.now(),
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
      data: page.items.map(toGrantResource),
      nextCursor: page.nextCursor ?? null,
    })
  })
}

export const handler = makeListGrantsHandler(documentClient, config.tables)
