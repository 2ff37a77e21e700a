import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { localPaths } from '../local/local-env'
import { type Io, parseCommand, runParsed } from './admin-cli'
import { type CliValues, cliMessage } from './messages'
import { describeStackTarget, localTarget, type Target } from './targets'

export type CliOptions = {
  /**
   * The DynamoDB document client to use. Default: one made for the target (the functions' own
   * kind, with their timeouts). Tests pass one with SDK middleware on it.
   */
  documentClient?: DynamoDBDocumentClient
  /** Where `npm start` keeps its records: bin/admin.ts passes VS_LOCAL_DIR. Default `.local/`. */
  localDir?: string | undefined
  /** Where `npm start` records its database. Default: in `localDir`. */
  endpointFile?: string
}

/**
 * The admin CLI, given its arguments: prints to `io` and resolves to the exit code (0, or 1 after
 * one `error: ...` line). bin/admin.ts runs it on process.argv.
 */
export const runCli = async (argv: string[], io: Io, options: CliOptions = {}): Promise<number> => {
  let values: CliValues = {}
  // The client this run made, closed at its end: in a test or the bench the process goes on.
  let made: { destroy: () => void } | undefined
  try {
    const parsed = parseCommand(argv)
    if (parsed.kind === 'help') {
      io.out(parsed.text)
      return 0
    }
    values = parsed.values
    const target: Target = parsed.stack
      ? {
          kind: 'stack',
          stackName: parsed.stack,
          ...(parsed.region === undefined ? {} : { region: parsed.region }),
          ...(await describeStackTarget(parsed.stack, parsed.region)),
        }
      : await localTarget(options.endpointFile ?? localPaths(options.localDir).endpointFile)
    let client = options.documentClient
    if (client === undefined) {
      const { createDocumentClient, createDynamoDbClient } = await import(
        '../functions/stores/dynamodb-client'
      )
      const dynamodb = createDynamoDbClient(
        target.kind === 'local'
          ? { endpoint: target.endpoint }
          : { ...(target.region ? { region: target.region } : {}) },
      )
      made = dynamodb
      client = createDocumentClient(dynamodb)
    }
    const { DynamoDbAdminStore } = await import('../functions/stores/admin.dynamodb')
    const { makeAdmin } = await import('../functions/core/admin')
    const store = new DynamoDbAdminStore(
      client,
      target.tables,
      target.kind === 'stack' ? { grantListIndex: target.grantListIndex } : {},
    )
    const { DynamoDbGrantLifeStore } = await import('../functions/stores/grant-life.dynamodb')
    const { makeGrantLife } = await import('../functions/core/grant-life')
    const lifeStore = new DynamoDbGrantLifeStore(client, target.tables)
    const grants = { store: lifeStore, life: makeGrantLife({ store: lifeStore, clock: Date.now }) }
    await runParsed(makeAdmin(store), parsed, io, options.localDir, grants)
    return 0
  } catch (error) {
    io.err(`error: ${cliMessage(error, values)}`)
    return 1
  } finally {
    made?.destroy()
  }
}
