import { ENV, TABLE_ENV } from './env-names'
import type { TableKey } from './shared/table-schema'

/**
 * The functions' configuration, read from an environment passed in (Lambda's and `npm start`'s
 * `process.env`, or a test's own). A missing variable stops the function at init, before it
 * serves a request: a misconfigured deployment should fail loudly, not answer 500 on every call.
 */
export const loadConfig = (env: Record<string, string | undefined>) => {
  const optional = (name: string): string | undefined => {
    const value = env[name]
    return value === undefined || value.trim() === '' ? undefined : value
  }
  const required = (name: string): string => {
    const value = optional(name)
    if (value === undefined) {
      throw new Error(
        `Missing required environment variable ${name}. The CDK stack sets it on the function; locally, npm start sets it.`,
      )
    }
    return value
  }
  return {
    tables: Object.fromEntries(
      Object.entries(TABLE_ENV).map(([table, name]) => [table, required(name)]),
    ) as Record<TableKey, string>,
    /** Set only by the local server and tests, to reach DynamoDB Local. Never set in AWS. */
    dynamodbEndpoint: optional(ENV.dynamodbEndpoint),
    /** Set by the Lambda runtime; locally any name does for DynamoDB Local. */
    awsRegion: optional(ENV.awsRegion),
  }
}

export type Config = ReturnType<typeof loadConfig>

/** This process's configuration: the entry points (handlers, local server, tests) read it. */
export const config: Config = loadConfig(process.env)
