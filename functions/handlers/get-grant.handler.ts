import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { makeGetGrant } from '../core/get-grant'
import { toGrantResource } from '../http/grant-resource'
import { httpHandler, json } from '../http/http-handler'
import { clock } from '../runtime/clock'
import { documentClient } from '../stores/dynamodb-client'
import { DynamoDbGrantStore, type TableNames } from '../stores/grants.dynamodb'

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
