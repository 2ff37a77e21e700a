import { existsSync, readFileSync } from 'node:fs'
import type { DescribeStacksCommandOutput } from '@aws-sdk/client-cloudformation'
import type { AdminTableNames } from '../functions/stores/admin.store'
import {
  GRANT_LIST_INDEX_OUTPUT,
  GRANT_LIST_INDEXES,
  type GrantListIndex,
  INDEX,
  TABLES,
  type TableKey,
  tableOutputKey,
} from '../functions/table-schema'
import { CliError } from './messages'

/** Where the admin CLI works: the DynamoDB Local of `npm start`, or a deployed stack's tables. */
export type Target =
  | { kind: 'local'; endpoint: string; tables: AdminTableNames }
  | {
      kind: 'stack'
      stackName: string
      region?: string
      tables: AdminTableNames
      /** The index the stack's grant listings read (locally always `byProgramSlot`). */
      grantListIndex: GrantListIndex
    }

/** Stack output key for each table (lib/grant-service-stack.ts writes them). */
export const TABLE_OUTPUTS = Object.fromEntries(
  (Object.keys(TABLES) as TableKey[]).map((key) => [key, tableOutputKey(key)]),
) as Record<keyof AdminTableNames, string>

type StacksAnswer = Pick<DescribeStacksCommandOutput, 'Stacks'>

/** The named stack's outputs in a DescribeStacks answer, by key (empty when it has none). */
export const stackOutputs = (response: StacksAnswer, stackName: string) => {
  const stack = response.Stacks?.find((s) => s.StackName === stackName) ?? response.Stacks?.[0]
  if (!stack) throw new CliError(`Stack ${stackName} was not found.`)
  return new Map((stack.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]))
}

/** Reads the table names from a DescribeStacks answer; anything missing is a clear error. */
export const tablesFromStackOutputs = (
  response: StacksAnswer,
  stackName: string,
): AdminTableNames => {
  const outputs = stackOutputs(response, stackName)
  const missing = Object.values(TABLE_OUTPUTS).filter((key) => !outputs.get(key))
  if (missing.length > 0) {
    throw new CliError(
      `Stack ${stackName} has no output ${missing.join(', ')}: is it a virtual-share grant stack deployed from this version?`,
    )
  }
  return Object.fromEntries(
    Object.entries(TABLE_OUTPUTS).map(([table, key]) => [table, outputs.get(key) as string]),
  ) as AdminTableNames
}

/**
 * The index the stack's own listings read (its GRANT_LIST_INDEX_OUTPUT output), so `grant list`
 * shows what the API shows. A stack deployed before that output existed has only `byProgram`.
 */
export const grantListIndexFromStackOutputs = (
  response: StacksAnswer,
  stackName: string,
): GrantListIndex => {
  const value = stackOutputs(response, stackName).get(GRANT_LIST_INDEX_OUTPUT)
  if (value === undefined) return INDEX.grantsByProgram
  const known = GRANT_LIST_INDEXES.find((index) => index === value)
  if (known === undefined) {
    throw new CliError(
      `Stack ${stackName} lists grants from index ${JSON.stringify(value)}, which this CLI does not know: use the CLI of the release the stack was deployed from.`,
    )
  }
  return known
}

/**
 * What `read` takes from a deployed stack's outputs (DescribeStacks). A stack that does not exist,
 * or credentials that cannot read it, are one CLI line.
 */
export const readStack = async <T>(
  stackName: string,
  region: string | undefined,
  read: (response: DescribeStacksCommandOutput) => T,
): Promise<T> => {
  const { CloudFormationClient, DescribeStacksCommand } = await import(
    '@aws-sdk/client-cloudformation'
  )
  const client = new CloudFormationClient(region === undefined ? {} : { region })
  try {
    return read(await client.send(new DescribeStacksCommand({ StackName: stackName })))
  } catch (error) {
    if (error instanceof CliError) throw error
    const e = error as Error
    throw new CliError(
      e.name === 'ValidationError'
        ? `Stack ${stackName} does not exist in ${region ?? 'the default region'}.`
        : `Cannot read stack ${stackName} (${e.name}: ${e.message}). Check your AWS credentials and --region.`,
    )
  } finally {
    client.destroy()
  }
}

/** The table names and the grant listing index of a deployed stack, from DescribeStacks. */
export const describeStackTarget = (stackName: string, region?: string) =>
  readStack(stackName, region, (response) => ({
    tables: tablesFromStackOutputs(response, stackName),
    grantListIndex: grantListIndexFromStackOutputs(response, stackName),
  }))

export const localTarget = async (endpointFile: string): Promise<Target> => {
  const hint = 'Start it with `npm start` in this checkout (or use --stack for a deployed stage).'
  if (!existsSync(endpointFile)) {
    throw new CliError(`The local database is not running: ${endpointFile} does not exist. ${hint}`)
  }
  const running = JSON.parse(readFileSync(endpointFile, 'utf8')) as {
    endpoint: string
    tables: AdminTableNames
  }
  try {
    await fetch(running.endpoint, { signal: AbortSignal.timeout(2_000) })
  } catch {
    throw new CliError(`The local database at ${running.endpoint} does not answer. ${hint}`)
  }
  return { kind: 'local', endpoint: running.endpoint, tables: running.tables }
}
