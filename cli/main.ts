import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { functionEnvironment, localPaths, tableEnvironment } from '../local/local-env'
import { type Io, parseCommand, runParsed } from './admin-cli'
import { type CliValues, cliMessage } from './messages'
import { describeStackTarget, localTarget, type Target } from './targets'

export type CliOptions = {
  /**
   * The DynamoDB document client to use. Default: the functions' own client, pointed at the
   * target through the variables it reads. Tests pass one with SDK middleware on it.
   */
  documentClient?: DynamoDBDocumentClient
  /** Where `npm start` records its database. Default: in `.local/` (or VS_LOCAL_DIR). */
  endpointFile?: string
}

/**
 * The admin CLI, given its arguments: prints to `io` and resolves to the exit code (0, or 1 after
 * one `error: ...` line). bin/admin.ts runs it on process.argv.
 */
export const runCli = async (argv: string[], io: Io, options: CliOptions = {}): Promise<number> => {
  let values: CliValues = {}
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
      : await localTarget(options.endpointFile ?? localPaths().endpointFile)
    let client = options.documentClient
    if (client === undefined) {
      // The functions' own DynamoDB client reads these variables when it is first imported.
      Object.assign(
        process.env,
        target.kind === 'local'
          ? functionEnvironment(target.endpoint, target.tables)
          : {
              ...tableEnvironment(target.tables),
              ...(target.region ? { AWS_REGION: target.region } : {}),
            },
      )
      client = (await import('../functions/stores/dynamodb-client')).documentClient
    }
    const { DynamoDbAdminStore } = await import('../functions/stores/admin.dynamodb')
    const { makeAdmin } = await import('../functions/core/admin')
    const store = new DynamoDbAdminStore(
      client,
      target.tables,
      target.kind === 'stack' ? { grantListIndex: target.grantListIndex } : {},
    )
    await runParsed(makeAdmin(store), parsed, io)
    return 0
  } catch (error) {
    io.err(`error: ${cliMessage(error, values)}`)
    return 1
  }
}
