#!/usr/bin/env -S npx tsx
import { type Io, parseCommand, runParsed } from '../cli/admin-cli'
import { describeStackTables, localTarget, type Target } from '../cli/targets'
/**
 * The admin CLI: `npm run admin -- <noun> <verb> [options]` (`--help` lists the commands).
 * Works on the local database of `npm start`, or with --stack on a deployed stage.
 */
import { AdminError } from '../functions/admin/admin.store'
import { functionEnvironment, localPaths, tableEnvironment } from '../local/local-env'

// The SDK's notice that Node.js 20 support ends in 2027 is in the README; keep tool output clean.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'

const io: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
}

const main = async () => {
  const parsed = parseCommand(process.argv.slice(2))
  if (parsed.kind === 'help') {
    io.out(parsed.text)
    return
  }
  const target: Target = parsed.stack
    ? {
        kind: 'stack',
        stackName: parsed.stack,
        ...(parsed.region === undefined ? {} : { region: parsed.region }),
        tables: await describeStackTables(parsed.stack, parsed.region),
      }
    : await localTarget(localPaths().endpointFile)
  // The functions' own DynamoDB client, pointed at the target through the variables it reads.
  Object.assign(
    process.env,
    target.kind === 'local'
      ? functionEnvironment(target.endpoint, target.tables)
      : {
          ...tableEnvironment(target.tables),
          ...(target.region ? { AWS_REGION: target.region } : {}),
        },
  )
  const { documentClient } = await import('../functions/shared/dynamodb')
  const { DynamoDbAdminStore } = await import('../functions/admin/admin.dynamodb')
  const { makeAdmin } = await import('../functions/admin/admin.use-cases')
  await runParsed(makeAdmin(new DynamoDbAdminStore(documentClient, target.tables)), parsed, io)
}

main().catch((error: Error) => {
  io.err(
    error instanceof AdminError
      ? `error: ${error.message}`
      : `error: ${error.name}: ${error.message.split('\n')[0]}`,
  )
  process.exitCode = 1
})
