import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { clock } from '../shared/clock'
import { documentClient } from '../shared/dynamodb'
import { toGrantResource } from '../shared/grant-resource'
import { httpHandler, json } from '../shared/http-handler'
import { DynamoDbGrantStore, type TableNames } from '../stores/grants.dynamodb'
import { makeGetGrant } from './get-grant.use-case'

/** The route's handler over any document client (tests hand it one that points at a dead socket). */
export const makeGetGrantHandler = (client: DynamoDBDocumentClient, tables: TableNames) => {
  const getGrant = makeGetGrant({
    store: new DynamoDbGrantStore(client, tables),
    clock: () => clock.now(),
  })
  return httpHandler(async (event, deadline) =>
    json(
      200,
      toGrantResource(
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

export const handler = makeGetGrantHandler(documentClient, config.tables)
