import { INDEX, type TableKey } from '../table-schema'

/**
 * Every AWS action the admin CLI uses against a deployed stage: the IAM an operator's role needs,
 * and the source of docs/admin-cli.md's list. test/cli/admin-in-process.test.ts ("IAM for the
 * admin CLI") runs every command, records each DynamoDB call on the wire (each item of a
 * TransactWriteItems as the action IAM checks for it: ConditionCheckItem, PutItem or UpdateItem)
 * and requires exactly this.
 * There is no TransactWriteItems action in IAM: a transaction is authorised item by item.
 */
export const ADMIN_DYNAMODB_ACCESS = {
  issuers: {
    table: ['ConditionCheckItem', 'PutItem', 'Scan'],
    indexes: {},
  },
  apiKeys: {
    table: ['BatchGetItem', 'GetItem', 'PutItem', 'Scan', 'UpdateItem'],
    indexes: { [INDEX.keysByIssuer]: ['Query'], [INDEX.keysById]: ['Query'] },
  },
  programs: {
    table: ['BatchGetItem', 'GetItem', 'PutItem', 'Scan', 'UpdateItem'],
    indexes: { [INDEX.programsByIssuer]: ['Query'] },
  },
  grants: {
    // Scan: `grant backfill-slots` only (the upgrade step). GetItem: `grant show` and `grant
    // cancel`; UpdateItem: the cancel (with the shares back on programs and the audit entry, in
    // one transaction) and the backfill.
    table: ['GetItem', 'Scan', 'UpdateItem'],
    // `grant list` reads the index the stack's listings read (its GrantsListIndex output):
    // `byProgram` only while a stage still has it.
    indexes: { [INDEX.grantsByProgramSlot]: ['Query'], [INDEX.grantsByProgram]: ['Query'] },
  },
  memberships: { table: [], indexes: {} },
  // Every change's audit entry, in the change's own transaction.
  audit: { table: ['PutItem'], indexes: {} },
  timers: { table: [], indexes: {} },
  inbox: { table: [], indexes: {} },
  // Webhook endpoints are managed in the web application only.
  webhooks: { table: [], indexes: {} },
  // Figures are kept by the grants stream's reader; the CLI reads them through the management API.
  figures: { table: [], indexes: {} },
  requests: { table: [], indexes: {} },
} as const satisfies Record<
  TableKey,
  { table: readonly string[]; indexes: Record<string, readonly string[]> }
>

/** `--stack` reads the table names from the stack's outputs. */
export const ADMIN_OTHER_ACCESS = ['cloudformation:DescribeStacks'] as const

/** `table Action` and `table/index/name Action` lines, sorted: the form the test compares. */
export const adminAccessLines = (): string[] =>
  Object.entries(ADMIN_DYNAMODB_ACCESS)
    .flatMap(([table, access]) => [
      ...access.table.map((action) => `${table} ${action}`),
      ...Object.entries(access.indexes as Record<string, readonly string[]>).flatMap(
        ([index, actions]) => actions.map((action) => `${table}/index/${index} ${action}`),
      ),
    ])
    .sort()
