import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { clock } from '../shared/clock'
import { documentClient } from '../shared/dynamodb'
import { toGrantResource } from '../shared/grant-resource'
import { httpHandler, json } from '../shared/http-handler'
import type { GrantListIndex } from '../shared/table-schema'
import type { TableNames } from '../stores/grants.dynamodb'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'
import { makeListGrants } from './list-grants.use-case'

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
