import type { Runtime } from '../../composition'
import { makeProgramReader } from '../../core/get-program'
import { DynamoDbGrantReads } from '../../stores/grants.reads.dynamodb'
import { httpHandler, json } from '../http-handler'
import { toProgramResource } from '../program-resource'

/** `GET /programs/{programId}` with `x-api-key`: the program, its pool and what is left of it. */
export const makeGetProgramHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const readProgram = makeProgramReader({
    store: new DynamoDbGrantReads(client, tables),
    clock: () => runtime.clock.now(),
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
