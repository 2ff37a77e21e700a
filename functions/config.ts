import { ENV, TABLE_ENV } from './env-names'
import {
  GRANT_LIST_INDEXES,
  type GrantListIndex,
  INDEX,
  type TableKey,
} from './stores/table-schema'

/**
 * GRANTS_LIST_INDEX: unset means `byProgramSlot`; a value that names no listing index stops the
 * function at init, like a missing table name (a typo must not quietly read the other index).
 */
const grantListIndexOf = (value: string | undefined): GrantListIndex => {
  if (value === undefined) return INDEX.grantsByProgramSlot
  const known = GRANT_LIST_INDEXES.find((index) => index === value)
  if (known === undefined) {
    throw new Error(
      `${ENV.grantsListIndex} must be one of ${GRANT_LIST_INDEXES.join(', ')}, got ${JSON.stringify(value)}.`,
    )
  }
  return known
}

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
    /** The index grant listings read (see ENV.grantsListIndex). */
    grantListIndex: grantListIndexOf(optional(ENV.grantsListIndex)),
    /** Set only by the local server and tests, to reach DynamoDB Local. Never set in AWS. */
    dynamodbEndpoint: optional(ENV.dynamodbEndpoint),
    /** Set by the Lambda runtime; locally any name does for DynamoDB Local. */
    awsRegion: optional(ENV.awsRegion),
  }
}

export type Config = ReturnType<typeof loadConfig>

/** This process's configuration: the entry points (handlers, local server, tests) read it. */
export const config: Config = loadConfig(process.env)
