import { ENV } from './env-names'

/**
 * The only module that reads the environment. Everything is read once, at cold start, and a
 * missing variable stops the function before it serves a request: a misconfigured deployment
 * should fail loudly at init, not answer 500 on every call.
 */
const required = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value.trim() === '') {
    throw new Error(
      `Missing required environment variable ${name}. The CDK stack sets it on the function; locally, npm start sets it.`,
    )
  }
  return value
}

const optional = (name: string): string | undefined => {
  const value = process.env[name]
  return value === undefined || value.trim() === '' ? undefined : value
}

export const config = {
  tables: {
    apiKeys: required(ENV.apiKeysTable),
    programs: required(ENV.programsTable),
    grants: required(ENV.grantsTable),
  },
  /** Set only by the local server and tests, to reach DynamoDB Local. Never set in AWS. */
  dynamodbEndpoint: optional(ENV.dynamodbEndpoint),
  /** Set by the Lambda runtime; locally any name does for DynamoDB Local. */
  awsRegion: optional(ENV.awsRegion),
} as const

export type Config = typeof config
