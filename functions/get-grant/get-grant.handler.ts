import { config } from '../config'
import { clock } from '../shared/clock'
import { documentClient } from '../shared/dynamodb'
import { toGrantResource } from '../shared/grant-resource'
import { httpHandler, json } from '../shared/http-handler'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { makeGetGrant } from './get-grant.use-case'

const getGrant = makeGetGrant({
  store: new DynamoDbGrantStore(documentClient, config.tables),
  clock: () => clock.now(),
})

export const handler = httpHandler(async (event) =>
  json(
    200,
    toGrantResource(
      await getGrant({
        apiKey: event.headers['x-api-key'],
        programId: event.pathParameters?.programId,
        grantId: event.pathParameters?.grantId,
      }),
    ),
  ),
)
