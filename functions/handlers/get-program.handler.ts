import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { config } from '../config'
import { makeProgramReader } from '../core/get-program'
import { httpHandler, json } from '../http/http-handler'
import { toProgramResource } from '../http/program-resource'
import { clock } from '../runtime/clock'
import { documentClient } from '../stores/dynamodb-client'
import type { TableNames } from '../stores/grants.dynamodb'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'

/** `GET /programs/{programId}` with `x-api-key`: the program, its pool and what is left of it. */
export const makeGetProgramHandler = (client: DynamoDBDocumentClient, tables: TableNames) => {
  const readProgram = makeProgramReader({
    store: new DynamoDbGrantReads(client, tables),
    clock: () => clock.now(),
  })
  return httpHandler(async (event, deadline) =>
    json(
      200,
      toProgramResource(
        await readProgram({
          apiKey: event.headers['x-api-key'],
          programId: event.pathParameters?.programId,
          deadline,
        }),
      ),
    ),
  )
}

export const handler = makeGetProgramHandler(documentClient, config.tables)
