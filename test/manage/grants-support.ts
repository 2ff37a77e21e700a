import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import { consumerById } from '../../functions/consumers'
import type { AuditEntry, MembershipRecord, Role } from '../../functions/domain/people'
import { ROUTES, type Route } from '../../functions/routes'
import { RATE_ITEM_PREFIX } from '../../functions/stores/rate-leases.dynamodb'
import { type Call, request } from '../support/api'
import { accessTokenFor, bearer, type Person } from '../support/identity'
import { config, documentClient } from '../support/runtime'

/**
 * What the grant and batch tests share: memberships written straight to the table (to make a
 * person a viewer or an admin of an issuer), and a recorder of the IAM actions each DynamoDB call
 * needs, to hold a route's declared access (functions/routes.ts) against what it really does.
 */

/** Makes the person a member of the issuer with this role (active), as the members routes would. */
export const addMember = async (
  issuerId: string,
  person: { sub: string; email: string },
  role: Role,
) => {
  const record: MembershipRecord = {
    issuerId,
    sub: person.sub,
    email: person.email,
    role,
    status: 'active',
    createdAt: new Date().toISOString(),
    invitedBy: 'operator CLI',
  }
  await documentClient.send(new PutCommand({ TableName: config.tables.memberships, Item: record }))
}

const tableKeyOf = (name: string, names: Record<string, string>): string => {
  const entry = Object.entries(names).find(([, table]) => table === name)
  return entry ? entry[0] : name
}

/**
 * Records every DynamoDB call as the IAM actions it is authorised by: `table Action` or
 * `table/index/name Action`, each item of a TransactWriteItems as its own action (ConditionCheckItem,
 * PutItem, UpdateItem, DeleteItem), as IAM checks them.
 */
/** `names`: the tables' physical names (the run's shared tables unless a test has its own). */
const isRateBucketWrite = (command: string, input: Record<string, unknown>) =>
  command === 'UpdateItem' && JSON.stringify(input.Key ?? {}).includes(`"${RATE_ITEM_PREFIX}`)

export const recordAccess = (
  client: DynamoDBClient,
  names: Record<string, string> = config.tables,
) => {
  const seen = new Set<string>()
  // Leases of keys' rate buckets, sent in the background: counted apart (their IAM, `rate#` items
  // only, is the route's `rateBuckets`: test/infra/stack.test.ts).
  const rateBuckets: string[] = []
  const name = `access-recorder-${Math.random()}`
  const add = (table: string, action: string, index?: string) =>
    seen.add(`${tableKeyOf(table, names)}${index ? `/index/${index}` : ''} dynamodb:${action}`)
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>
      const command = (context.commandName ?? '').replace(/Command$/, '')
      switch (command) {
        case 'TransactWriteItems':
          for (const item of (input.TransactItems ?? []) as Record<
            string,
            { TableName: string }
          >[]) {
            const [kind, body] = Object.entries(item)[0] as [string, { TableName: string }]
            const action = {
              ConditionCheck: 'ConditionCheckItem',
              Put: 'PutItem',
              Update: 'UpdateItem',
              Delete: 'DeleteItem',
            }[kind]
            add(body.TableName, action ?? kind)
          }
          break
        case 'BatchGetItem':
        case 'BatchWriteItem':
          for (const table of Object.keys((input.RequestItems ?? {}) as object)) add(table, command)
          break
        default:
          // A key's rate bucket (`rate#<keyId>`, leased in the background): its own line, the
          // one the route's `rateBuckets` declares (IAM: only `rate#` items).
          if (isRateBucketWrite(command, input)) rateBuckets.push(command)
          else add(input.TableName as string, command, input.IndexName as string | undefined)
      }
      return next(args)
    },
    { step: 'initialize', name },
  )
  return { seen, rateBuckets, stop: () => client.middlewareStack.remove(name) }
}

/** The IAM lines of the calls `act` makes (nothing else may use the client meanwhile), sorted. */
export const accessDuring = async (client: DynamoDBClient, act: () => Promise<unknown>) => {
  const access = recordAccess(client)
  try {
    await act()
  } finally {
    access.stop()
  }
  return [...access.seen].sort()
}

/** What a consumer is allowed (functions/consumers.ts), in the recorder's form. */
export const consumerAccess = (id: Parameters<typeof consumerById>[0]): Set<string> => {
  const consumer = consumerById(id)
  return new Set([
    ...Object.entries(consumer.access).flatMap(([table, actions]) =>
      (actions ?? []).map((action) => `${table} ${action}`),
    ),
    ...Object.entries(consumer.indexes ?? {}).flatMap(([table, byIndex]) =>
      Object.entries(byIndex ?? {}).flatMap(([index, actions]) =>
        actions.map((action) => `${table}/index/${index} ${action}`),
      ),
    ),
  ])
}

/** What a route is allowed, in the recorder's form. */
export const declaredAccess = (id: string): Set<string> => {
  const route = (ROUTES as readonly Route[]).find((r) => r.id === id) as Route
  const lines = new Set<string>()
  for (const [table, actions] of Object.entries(route.access)) {
    for (const action of actions ?? []) lines.add(`${table} ${action}`)
  }
  for (const [table, indexes] of Object.entries(route.indexes ?? {})) {
    for (const [index, actions] of Object.entries(indexes ?? {})) {
      for (const action of actions) lines.add(`${table}/index/${index} ${action}`)
    }
  }
  return lines
}

/** A management call with the person's real access token (or none), JSON body, extra headers. */
export const manageCall = async (
  baseUrl: string,
  person: Person | undefined,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Call> =>
  request(baseUrl, method, path, {
    headers: {
      ...(person === undefined ? {} : bearer(await accessTokenFor(person))),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  })

/** The issuer's audit log, read directly (strongly consistent), oldest first. */
export const auditLog = async (issuerId: string): Promise<AuditEntry[]> => {
  const items: AuditEntry[] = []
  let start: Record<string, unknown> | undefined
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: config.tables.audit,
        KeyConditionExpression: 'issuerId = :i',
        ExpressionAttributeValues: { ':i': issuerId },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    )
    items.push(...((page.Items ?? []) as AuditEntry[]))
    start = page.LastEvaluatedKey
  } while (start)
  return items
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
