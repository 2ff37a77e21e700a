import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import { config } from '../../config'
import {
  adminFor,
  keyResource,
  MANAGE_BODY_MAX_BYTES,
  MANAGE_STORE_OPTIONS,
  manageJson,
  useCase,
} from '../../http/manage-admin'
import { CreateKeyBody } from '../../http/manage-bodies'
import { manageHandler } from '../../http/manage-handler'
import type { JsonEvent } from '../../http/middleware'
import { DynamoDbAdminStore } from '../../stores/admin.dynamodb'
import type { AdminTableNames } from '../../stores/admin.store'
import { documentClient } from '../../stores/dynamodb-client'
import { DynamoDbMembershipReader } from '../../stores/memberships.dynamodb'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * `POST /manage/issuers/{issuerId}/keys` `{ mode, expiresIn? }`: a new key, written in one
 * transaction with its audit entry. 201 with the secret: the only time it is ever shown (only its
 * SHA-256 is stored), so the answer is `Cache-Control: no-store`.
 */
export const makeCreateKeyHandler = (client: DynamoDBDocumentClient, tables: AdminTableNames) => {
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  return manageHandler<Event>(
    'CreateKey',
    { memberships },
    async (request) => {
      const body = CreateKeyBody.parse(request.event.body)
      const admin = adminFor(store, request)
      const { secret, record } = await useCase(() =>
        admin.createKey({ issuer: request.membership?.issuerId, ...body }),
      )
      return manageJson(201, { ...keyResource({ ...record, state: 'active' }), secret })
    },
    { jsonBodyMaxBytes: MANAGE_BODY_MAX_BYTES },
  )
}

export const handler = makeCreateKeyHandler(documentClient, config.tables)
