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

/** Reads the table names from a DescribeStacks answer; anything missing is a clear error. */
export const tablesFromStackOutputs = (
  response: Pick<DescribeStacksCommandOutput, 'Stacks'>,
  stackName: string,
): AdminTableNames => {
  const stack = response.Stacks?.find((s) => s.StackName === stackName) ?? response.Stacks?.[0]
  if (!stack) throw new CliError(`Stack ${stackName} was not found.`)
  const outputs = new Map((stack.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]))
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
  response: Pick<DescribeStacksCommandOutput, 'Stacks'>,
  stackName: string,
): GrantListIndex => {
  const stack = response.Stacks?.find((s) => s.StackName === stackName) ?? response.Stacks?.[0]
  const value = stack?.Outputs?.find((o) => o.OutputKey === GRANT_LIST_INDEX_OUTPUT)?.OutputValue
  if (value === undefined) return INDEX.grantsByProgram
  const known = GRANT_LIST_INDEXES.find((index) => index === value)
  if (known === undefined) {
    throw new CliError(
      `Stack ${stackName} lists grants from index ${JSON.stringify(value)}, which this CLI does not know: use the CLI of the release the stack was deployed from.`,
    )
  }
  return known
}

/** The table names and the grant listing index of a deployed stack, from DescribeStacks. */
export const describeStackTarget = async (stackName: string, region?: string) => {
  const { CloudFormationClient, DescribeStacksCommand } = await import(
    '@aws-sdk/client-cloudformation'
  )
  const client = new CloudFormationClient(region === undefined ? {} : { region })
  try {
    const response = await client.send(new DescribeStacksCommand({ StackName: stackName }))
    return {
      tables: tablesFromStackOutputs(response, stackName),
      grantListIndex: grantListIndexFromStackOutputs(response, stackName),
    }
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

/** The local database recorded by `npm start`; says how to start it when it is not running. */
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
