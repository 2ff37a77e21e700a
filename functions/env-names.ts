/**
 * Names of the environment variables the functions read (config.ts reads them). Pure data, so the
 * CDK stack can import it to set them, and its test can check the two agree.
 */
export const ENV = {
  apiKeysTable: 'API_KEYS_TABLE',
  programsTable: 'PROGRAMS_TABLE',
  grantsTable: 'GRANTS_TABLE',
  /** Only for DynamoDB Local (npm start, sam local); empty in AWS. */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /** Set by the Lambda runtime itself; never by the stack. */
  awsRegion: 'AWS_REGION',
} as const

/**
 * The table each table variable names, for the tables the functions use (the issuers table is the
 * admin CLI's alone). The stack and the local server set the variables from this map.
 */
export const TABLE_ENV = {
  apiKeys: ENV.apiKeysTable,
  programs: ENV.programsTable,
  grants: ENV.grantsTable,
} as const
