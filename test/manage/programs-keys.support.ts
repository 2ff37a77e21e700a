import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { hashApiKey } from '../../functions/domain/api-key'
import type { AuditEntry, MembershipRecord, Role } from '../../functions/domain/people'
import { routeById } from '../../functions/routes'
import { batchGetByKey } from '../../functions/stores/batch-get'
import { INDEX } from '../../functions/table-schema'
import { type Call, queryAll, request } from '../support/api'
import { contractCheck } from '../support/contract-check'
import { accessTokenFor, bearer, type Person } from '../support/identity'
import { config, documentClient } from '../support/runtime'

/**
 * Helpers of the program, key and audit route tests: memberships written straight to their table
 * (the member routes are tested on their own), calls with a person's real access token, and the
 * issuer's programs, keys and audit log read directly (strongly consistent) to prove what a
 * refused call did not write.
 */

export const tables = config.tables

/** The person becomes a member of the issuer with this role, as an accepted invitation would. */
export const join = (person: Pick<Person, 'sub' | 'email'>, issuerId: string, role: Role) =>
  documentClient.send(
    new PutCommand({
      TableName: tables.memberships,
      Item: {
        issuerId,
        sub: person.sub,
        email: person.email,
        role,
        status: 'active',
        createdAt: new Date().toISOString(),
        invitedBy: 'operator CLI',
      } satisfies MembershipRecord,
    }),
  )

export const leave = (person: Pick<Person, 'sub'>, issuerId: string) =>
  documentClient.send(
    new DeleteCommand({ TableName: tables.memberships, Key: { issuerId, sub: person.sub } }),
  )

export const setRole = (person: Pick<Person, 'sub'>, issuerId: string, role: Role) =>
  documentClient.send(
    new UpdateCommand({
      TableName: tables.memberships,
      Key: { issuerId, sub: person.sub },
      UpdateExpression: 'SET #role = :role',
      ExpressionAttributeNames: { '#role': 'role' },
      ExpressionAttributeValues: { ':role': role },
    }),
  )

/** A management call: with the person's real access token, or with none. */
export const manage = async (
  baseUrl: string,
  person: Person | undefined,
  method: string,
  path: string,
  body?: unknown,
): Promise<Call> =>
  request(baseUrl, method, path, {
    headers: {
      ...(person === undefined ? {} : bearer(await accessTokenFor(person))),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })

/**
 * Every item of `table` with this issuerId, strongly consistent: the keys from the table's
 * by-issuer index (`index`, keyed issuerId and createdAt), then the items themselves. Every item
 * of these tables that carries an issuerId is in that index (a program's head, a key; shards,
 * terms and key-id pointers carry none), so a Scan of the run's shared table found the same.
 */
const itemsOfIssuer = async (table: string, index: string, key: string, issuerId: string) => {
  const keys = await queryAll({
    TableName: table,
    IndexName: index,
    KeyConditionExpression: 'issuerId = :i',
    ExpressionAttributeValues: { ':i': issuerId },
    ProjectionExpression: '#k',
    ExpressionAttributeNames: { '#k': key },
  })
  return batchGetByKey(
    documentClient,
    table,
    key,
    keys.map((k) => k[key] as string),
  )
}

export const auditOf = async (issuerId: string): Promise<AuditEntry[]> =>
  (await queryAll({
    TableName: tables.audit,
    KeyConditionExpression: 'issuerId = :i',
    ExpressionAttributeValues: { ':i': issuerId },
    ConsistentRead: true,
    ScanIndexForward: false,
  })) as AuditEntry[]

const byKey = (key: string) => (a: Record<string, unknown>, b: Record<string, unknown>) =>
  String(a[key]).localeCompare(String(b[key]))

/**
 * Everything of these issuers' that a route could change, per issuer: programs, keys, audit log,
 * read side by side from each issuer's own partitions (not a Scan of the tables the run shares).
 */
export const issuerStates = async (issuerIds: readonly string[]) => {
  const [programs, keys, audits] = await Promise.all([
    Promise.all(
      issuerIds.map((id) =>
        itemsOfIssuer(tables.programs, INDEX.programsByIssuer, 'programId', id),
      ),
    ),
    Promise.all(
      issuerIds.map((id) => itemsOfIssuer(tables.apiKeys, INDEX.keysByIssuer, 'keyHash', id)),
    ),
    Promise.all(issuerIds.map(auditOf)),
  ])
  return issuerIds.map((_, i) => ({
    programs: (programs[i] ?? []).sort(byKey('programId')),
    keys: (keys[i] ?? []).sort(byKey('keyHash')),
    audit: audits[i] as AuditEntry[],
  }))
}

/** Everything of the issuer's that a route could change: its programs, keys and audit log. */
export const issuerState = async (issuerId: string) =>
  (await issuerStates([issuerId]))[0] as Awaited<ReturnType<typeof issuerStates>>[number]

/** Runs `act` and asserts that none of these issuers' programs, keys or audit entries changed. */
export const expectIssuersUnchanged = async (issuerIds: string[], act: () => Promise<void>) => {
  const before = await issuerStates(issuerIds)
  await act()
  expect(await issuerStates(issuerIds)).toEqual(before)
}

/** The ways a key could leak: whole, its random part alone, its hash. */
export const secretForms = (secret: string) => [secret, secret.slice(8, 32), hashApiKey(secret)]

export const expectNoSecret = (texts: string[], secrets: string[]) => {
  const all = texts.join('\n')
  // The leaked forms themselves, not the (long) texts they were found in.
  expect(secrets.flatMap(secretForms).filter((form) => all.includes(form))).toEqual([])
}

/** openapi.json, held against the real answers of the program and key routes. */
export const contract = contractCheck()

/** The route's method and path as openapi.json keys them, from its route key in routes.ts. */
export const operationOf = (routeId: string) => {
  const [method, path] = routeById(routeId).routeKey.split(' ') as [string, string]
  return { method: method.toLowerCase(), path }
}

/**
 * Checks a real answer of the route against openapi.json (status, content type, body schema,
 * required headers; with `examples`, the documented example too) and hands it back.
 */
export const documented = (
  routeId: string,
  answer: Call,
  options: { examples?: 'all' | 'ok' | 'none' } = {},
) => {
  const { method, path } = operationOf(routeId)
  contract.check(path, method, answer, options)
  return answer
}

/** Every `method path status` openapi.json lists for the route. */
export const documentedStatuses = (routeId: string) => {
  const { method, path } = operationOf(routeId)
  return contract.documented(path, method)
}
