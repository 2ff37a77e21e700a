import type { AddressInfo } from 'node:net'
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { Runtime } from '../../functions/composition'
import type { ApiKeyRecord } from '../../functions/domain/api-key'
import { generateApiKey, hashApiKey, maskApiKey } from '../../functions/domain/api-key'
import { auditEntry } from '../../functions/domain/audit-entry'
import { newId } from '../../functions/domain/ids'
import { WEBHOOK_SENDER } from '../../functions/domain/people'
import { DEFAULT_SHARDS } from '../../functions/domain/program-shards'
import { ROUTES, type Route } from '../../functions/routes'
import { auditPut } from '../../functions/stores/audit'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { createLocalApi, type LambdaHandler } from '../../local/http-server'
import {
  type Call,
  expectProblem,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  request,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import { bearer, idTokenFor, type Person, signUpPerson, testAuthorizer } from '../support/identity'
import { config, dynamodb } from '../support/runtime'
import { THROTTLED, UNEXPECTED, withDynamoDbFault } from './dynamodb-faults'
import {
  auditOf,
  expectIssuersUnchanged,
  expectNoSecret,
  join,
  leave,
  manage,
  setRole,
  tables,
} from './programs-keys.support'

/**
 * `GET /manage/me`, the audit log route, and what holds for every program and key route: each
 * change and its audit entry are one transaction (a change refused by its condition leaves no
 * entry), each route's function makes only the DynamoDB calls its IAM allows, and no log line
 * holds a key. Through the local server with real access tokens from the run's Cognito emulator.
 */

let a: Issuer
let b: Issuer
let admin: Person
let viewer: Person
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** The route key of the request the local server is running now (requests here go one by one). */
let current: string | undefined
const api = useApi({
  wrap: (routeKey, handler) => async (event, context) => {
    current = routeKey
    try {
      return await handler(event, context)
    } finally {
      current = undefined
    }
  },
})
beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 100 }), newIssuer()])
  ;[admin, viewer] = (await Promise.all([signUpPerson(), signUpPerson()])) as [Person, Person]
  await Promise.all([join(admin, a.issuerId, 'admin'), join(viewer, a.issuerId, 'viewer')])
})

const call = (person: Person | undefined, method: string, path: string, body?: unknown) =>
  manage(api.baseUrl, person, method, path, body)

// The contract (openapi.json) against these answers: each status listed, each body its schema's
// (and the documented example of the status answered).
const ME = '/manage/me'
const AUDIT = '/manage/issuers/{issuerId}/audit'
const contract = contractCheck()
const documented = (path: string, answer: Call) => {
  contract.check(path, 'get', answer, { examples: 'all' })
  return answer
}

/** A middleware on the functions' DynamoDB client (the one the local server's handlers use). */
const onDynamoDb = (
  handler: (command: string, input: Record<string, unknown>) => Promise<void> | void,
) => {
  const name = `manage-test-${Math.random()}`
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      await handler(context.commandName ?? '', args.input as Record<string, unknown>)
      return next(args)
    },
    { step: 'initialize', name },
  )
  return () => dynamodb.middlewareStack.remove(name)
}

/** A client of the test's own: its writes pass no middleware of the functions' client. */
const direct = createDocumentClient(createDynamoDbClient({ endpoint: config.dynamodbEndpoint }))
afterAll(() => direct.destroy())

describe('GET /manage/me', () => {
  it('answers the person, their issuers with names and roles; the e-mail from a membership', async () => {
    const person = await signUpPerson()
    const c = await newIssuer()
    await Promise.all([join(person, a.issuerId, 'viewer'), join(person, c.issuerId, 'owner')])
    const me = documented(ME, await call(person, 'GET', '/manage/me'))
    expect(me.status).toBe(200)
    expect(me.headers.get('cache-control')).toBe('no-store')
    const expected = [
      { issuerId: a.issuerId, issuerName: 'Test issuer', role: 'viewer' },
      { issuerId: c.issuerId, issuerName: 'Test issuer', role: 'owner' },
    ].sort((x, y) => x.issuerId.localeCompare(y.issuerId))
    expect(me.body).toEqual({ email: person.email, memberships: expected })

    // A role change and a removal show on the very next call.
    await setRole(person, a.issuerId, 'admin')
    await leave(person, c.issuerId)
    expect((await call(person, 'GET', '/manage/me')).body).toEqual({
      email: person.email,
      memberships: [{ issuerId: a.issuerId, issuerName: 'Test issuer', role: 'admin' }],
    })
    await leave(person, a.issuerId)
    expect(documented(ME, await call(person, 'GET', '/manage/me')).body).toEqual({
      email: null,
      memberships: [],
    })
  })

  it('refuses a request without a token (401) and an ID token (403) at the gateway', async () => {
    const none = documented(ME, await call(undefined, 'GET', '/manage/me'))
    expect({ status: none.status, body: none.body }).toEqual({
      status: 401,
      body: { message: 'Unauthorized' },
    })
    const id = documented(
      ME,
      await request(api.baseUrl, 'GET', '/manage/me', {
        headers: bearer(await idTokenFor(admin)),
      }),
    )
    expect({ status: id.status, body: id.body }).toEqual({
      status: 403,
      body: { message: 'Forbidden' },
    })
    expectProblem(
      documented(ME, await call(admin, 'GET', '/manage/me?x=1')),
      400,
      'validation_failed',
    )
  })
})

describe('GET /manage/issuers/{issuerId}/audit', () => {
  it('shows every change newest first, with who, what, the target, when and the request id', async () => {
    const c = await newIssuer()
    await Promise.all([join(admin, c.issuerId, 'admin'), join(viewer, c.issuerId, 'viewer')])
    const base = `/manage/issuers/${c.issuerId}`
    const changes = [
      await call(admin, 'POST', `${base}/programs`, { name: 'Audited', mode: 'TEST' }),
    ]
    const programId = changes[0]?.body.id as string
    changes.push(await call(admin, 'POST', `${base}/programs/${programId}/pause`))
    changes.push(await call(admin, 'POST', `${base}/keys`, { mode: 'LIVE' }))
    const keyId = changes[2]?.body.id as string
    changes.push(await call(admin, 'POST', `${base}/keys/${keyId}/roll`, { grace: '1h' }))
    changes.push(await call(admin, 'POST', `${base}/keys/${keyId}/revoke`))
    expect(changes.map((x) => x.status)).toEqual([201, 200, 201, 201, 200])
    const [, , , roll] = changes as [Call, Call, Call, Call, Call]

    const log = documented(AUDIT, await call(viewer, 'GET', `${base}/audit`))
    expect(log.status).toBe(200)
    const person = { kind: 'person', sub: admin.sub, email: admin.email }
    const operator = { kind: 'operator', label: 'operator CLI' }
    const entry = (
      change: number | undefined,
      actor: object,
      action: string,
      target: object,
      details: object,
    ) => ({
      id: expect.stringMatching(/Z#[0-9a-f]{8}$/),
      at: expect.stringMatching(ISO),
      actor,
      action,
      target,
      requestId: change === undefined ? null : changes[change]?.headers.get('x-request-id'),
      details,
    })
    const rolledTo = roll.body.id
    expect(log.body).toEqual({
      entries: [
        entry(4, person, 'key.revoke', { type: 'key', id: keyId }, {}),
        entry(
          3,
          person,
          'key.roll',
          { type: 'key', id: keyId },
          {
            newKeyId: rolledTo,
            oldExpiresAt: (roll.body.old as { expiresAt: string }).expiresAt,
          },
        ),
        entry(
          2,
          person,
          'key.create',
          { type: 'key', id: keyId },
          { mode: 'LIVE', expiresAt: null },
        ),
        entry(
          1,
          person,
          'program.pause',
          { type: 'program', id: programId },
          { from: 'active', to: 'paused' },
        ),
        entry(
          0,
          person,
          'program.create',
          { type: 'program', id: programId },
          { mode: 'TEST', name: 'Audited', pool: null },
        ),
        // newIssuer's programs, made through the same use cases by the operator.
        entry(
          undefined,
          operator,
          'program.create',
          { type: 'program', id: expect.any(String) },
          expect.any(Object),
        ),
        entry(
          undefined,
          operator,
          'program.create',
          { type: 'program', id: expect.any(String) },
          expect.any(Object),
        ),
        entry(
          undefined,
          operator,
          'issuer.create',
          { type: 'issuer', id: c.issuerId },
          { name: 'Test issuer' },
        ),
      ],
      nextCursor: null,
    })
    const ats = (log.body.entries as { at: string }[]).map((e) => e.at)
    expect([...ats].sort().reverse()).toEqual(ats)
  })

  it('pages with an opaque cursor; the pages add up to the whole log', async () => {
    const whole = await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/audit?limit=100`)
    const all = whole.body.entries as { id: string }[]
    expect(all.length).toBeGreaterThanOrEqual(3)
    const paged: { id: string }[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const page: Call = documented(
        AUDIT,
        await call(
          viewer,
          'GET',
          `/manage/issuers/${a.issuerId}/audit?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
        ),
      )
      expect(page.status).toBe(200)
      expect((page.body.entries as unknown[]).length).toBeLessThanOrEqual(2)
      paged.push(...(page.body.entries as { id: string }[]))
      cursor = page.body.nextCursor as string | null
      if (cursor !== null) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
      pages++
    } while (cursor !== null)
    expect(paged).toEqual(all)
    expect(pages).toBe(Math.ceil(all.length / 2))
  })

  it.each([
    ['cursor=abc', 'cursor', 'cursor must be a cursor from a previous page'],
    [
      `cursor=${Buffer.from('{"issuerId":"iss_x"}').toString('base64url')}`,
      'cursor',
      'cursor must be a cursor from a previous page',
    ],
    ['limit=0', 'limit', 'limit must be a whole number from 1 to 100, got "0"'],
    ['limit=101', 'limit', 'limit must be a whole number from 1 to 100, got "101"'],
    ['after=x', 'after', 'unknown query parameter "after"'],
  ])('refuses ?%s: 400 naming %s', async (query, field, message) => {
    const answer = documented(
      AUDIT,
      await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/audit?${query}`),
    )
    expectProblem(answer, 400, 'validation_failed')
    expect(answer.body.errors).toEqual([{ field, message }])
  })

  it("is read only, and another issuer's log is not found", async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      await expectIssuersUnchanged([a.issuerId], async () => {
        const answer = await call(admin, method, `/manage/issuers/${a.issuerId}/audit`)
        expectProblem(answer, 405, 'method_not_allowed')
        expect(answer.headers.get('allow')).toBe('GET')
      })
    }
    expectProblem(
      documented(AUDIT, await call(admin, 'GET', `/manage/issuers/${b.issuerId}/audit`)),
      404,
      'issuer_not_found',
    )
    for (const answer of [
      await call(undefined, 'GET', `/manage/issuers/${a.issuerId}/audit`),
      await request(api.baseUrl, 'GET', `/manage/issuers/${a.issuerId}/audit`, {
        headers: bearer(await idTokenFor(viewer)),
      }),
    ]) {
      expect(documented(AUDIT, answer).body).toEqual({
        message: answer.status === 401 ? 'Unauthorized' : 'Forbidden',
      })
    }
  })

  it('shows an entry of each kind of actor: a person, the operator CLI and the webhook sender', async () => {
    const c = await newIssuer()
    await join(viewer, c.issuerId, 'viewer')
    // An entry as the webhook sender writes it when it disables an endpoint (the service actor).
    const entry = auditEntry({
      issuerId: c.issuerId,
      actor: WEBHOOK_SENDER,
      action: 'webhook.disable',
      target: { type: 'webhook_endpoint', id: 'we_5k2x7q6w7e6r5t4y3v2j4h3p5a' },
      now: Date.now(),
      details: { mode: 'TEST', host: 'hooks.example.com', reason: 'gone' },
    })
    await direct.send(new PutCommand(auditPut(tables.audit, entry).Put))
    await join(admin, c.issuerId, 'admin')
    expect(
      (
        await call(admin, 'POST', `/manage/issuers/${c.issuerId}/programs`, {
          name: 'By a person',
          mode: 'TEST',
        })
      ).status,
    ).toBe(201)
    const log = documented(AUDIT, await call(viewer, 'GET', `/manage/issuers/${c.issuerId}/audit`))
    expect(
      new Set((log.body.entries as { actor: { kind: string } }[]).map((e) => e.actor.kind)),
    ).toEqual(new Set(['person', 'operator', 'service']))
    expect(log.body.entries).toContainEqual(
      expect.objectContaining({
        actor: { kind: 'service', label: 'webhook sender' },
        action: 'webhook.disable',
        requestId: null,
      }),
    )
  })

  it('answers DynamoDB throttling 503 service_unavailable and an unexpected failure 500 internal_error, naming nothing inside', async () => {
    for (const [path, url] of [
      [ME, '/manage/me'],
      [AUDIT, `/manage/issuers/${a.issuerId}/audit`],
    ] as const) {
      // The route's own read (the membership check is an item read and goes through).
      const throttled = documented(
        path,
        await withDynamoDbFault(THROTTLED, ['QueryCommand'], () => call(viewer, 'GET', url)),
      )
      expectProblem(throttled, 503, 'service_unavailable')
      const broken = documented(
        path,
        await withDynamoDbFault(UNEXPECTED, ['QueryCommand'], () => call(viewer, 'GET', url)),
      )
      expectProblem(broken, 500, 'internal_error')
      expect(broken.text).not.toContain(UNEXPECTED)
    }
  })

  it('answered both routes with the statuses openapi.json documents (the checks above)', () => {
    const expected = [
      ...[200, 400, 401, 403, 500, 503].map((s) => `get ${ME} ${s}`),
      ...[200, 400, 401, 403, 404, 500, 503].map((s) => `get ${AUDIT} ${s}`),
    ]
    expect([...contract.seen].filter((seen) => expected.includes(seen)).sort()).toEqual(
      expected.sort(),
    )
  })
})

describe('a change and its audit entry are one transaction', () => {
  it('a pause whose condition fails when it is written (closed in between) leaves no entry', async () => {
    const created = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/programs`, {
      name: 'Raced',
      mode: 'TEST',
    })
    const programId = created.body.id as string
    let raced = 0
    const stop = onDynamoDb(async (command, input) => {
      if (command !== 'TransactWriteItemsCommand' || !JSON.stringify(input).includes(programId)) {
        return
      }
      raced++
      // Someone closes the program between the route's read and its write.
      await direct.send(
        new UpdateCommand({
          TableName: tables.programs,
          Key: { programId },
          UpdateExpression: 'SET #s = :closed',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':closed': 'closed' },
        }),
      )
    })
    const before = await auditOf(a.issuerId)
    let answer: Awaited<ReturnType<typeof call>>
    try {
      answer = await call(
        admin,
        'POST',
        `/manage/issuers/${a.issuerId}/programs/${programId}/pause`,
      )
    } finally {
      stop()
    }
    expect(raced).toBe(1)
    expectProblem(answer, 409, 'program_state_conflict')
    expect(answer.body.detail).toBe(`Program ${programId} is closed; closing is final.`)
    expect(await auditOf(a.issuerId)).toEqual(before)
    expect((await programState(programId)).program?.status).toBe('closed')
  })

  it('a roll of a key revoked in between writes neither the new key nor an entry', async () => {
    const created = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys`, {
      mode: 'TEST',
    })
    const keyId = created.body.id as string
    const secret = created.body.secret as string
    const stop = onDynamoDb(async (command, input) => {
      if (command !== 'TransactWriteItemsCommand' || !JSON.stringify(input).includes(keyId)) return
      await direct.send(
        new UpdateCommand({
          TableName: tables.apiKeys,
          Key: { keyHash: hashApiKey(secret) },
          UpdateExpression: 'SET #s = :revoked',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked' },
        }),
      )
    })
    const before = await auditOf(a.issuerId)
    const keysBefore = (await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/keys`)).body
      .keys as unknown[]
    let answer: Awaited<ReturnType<typeof call>>
    try {
      answer = await call(admin, 'POST', `/manage/issuers/${a.issuerId}/keys/${keyId}/roll`)
    } finally {
      stop()
    }
    expectProblem(answer, 409, 'key_state_conflict')
    expect(answer.body.detail).toBe(`Key ${keyId} is revoked; only an active key can be rolled.`)
    expect(await auditOf(a.issuerId)).toEqual(before)
    const keysAfter = (await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/keys`)).body
      .keys as unknown[]
    expect(keysAfter).toHaveLength(keysBefore.length)
  })

  it('every change route sends its items and exactly one audit entry in one TransactWriteItems', async () => {
    const sent: { route: string | undefined; items: string[] }[] = []
    const stop = onDynamoDb((command, input) => {
      if (command !== 'TransactWriteItemsCommand') return
      sent.push({
        route: current,
        items: (input.TransactItems as Record<string, { TableName: string }>[]).map(
          (item) => `${Object.keys(item)[0]} ${tableKey(Object.values(item)[0]?.TableName)}`,
        ),
      })
    })
    const base = `/manage/issuers/${a.issuerId}`
    try {
      const program = await call(admin, 'POST', `${base}/programs`, { name: 'T', mode: 'LIVE' })
      for (const action of ['pause', 'resume', 'close']) {
        await call(admin, 'POST', `${base}/programs/${program.body.id}/${action}`)
      }
      const key = await call(admin, 'POST', `${base}/keys`, { mode: 'LIVE' })
      await call(admin, 'POST', `${base}/keys/${key.body.id}/roll`)
      await call(admin, 'POST', `${base}/keys/${key.body.id}/revoke`)
    } finally {
      stop()
    }
    const route = (id: string) => ROUTES.find((r) => r.id === id)?.routeKey
    expect(sent).toEqual([
      {
        route: route('CreateProgram'),
        // The program's head and its counter shards (no pool: DEFAULT_SHARDS), with the entry.
        items: [
          'ConditionCheck issuers',
          ...Array.from({ length: 1 + DEFAULT_SHARDS }, () => 'Put programs'),
          'Put audit',
        ],
      },
      { route: route('PauseProgram'), items: ['Update programs', 'Put audit'] },
      { route: route('ResumeProgram'), items: ['Update programs', 'Put audit'] },
      { route: route('CloseProgram'), items: ['Update programs', 'Put audit'] },
      {
        route: route('CreateKey'),
        items: ['ConditionCheck issuers', 'Put apiKeys', 'Put apiKeys', 'Put audit'],
      },
      {
        route: route('RollKey'),
        items: ['Update apiKeys', 'Put apiKeys', 'Put apiKeys', 'Put audit'],
      },
      { route: route('RevokeKey'), items: ['Update apiKeys', 'Put audit'] },
    ])
  })
})

const tableKey = (name: unknown) =>
  Object.entries(tables).find(([, physical]) => physical === name)?.[0] ?? `?${String(name)}`

/** A key as the version before key-id pointers wrote it: the key item alone. */
const legacyKey = async (issuerId: string) => {
  const secret = generateApiKey('TEST')
  const record: ApiKeyRecord = {
    keyHash: hashApiKey(secret),
    keyId: newId('apiKey'),
    issuerId,
    mode: 'TEST',
    status: 'active',
    createdAt: new Date().toISOString(),
    ...maskApiKey(secret),
  }
  await direct.send(new PutCommand({ TableName: tables.apiKeys, Item: record }))
  return record
}

describe('IAM: each function makes exactly the DynamoDB calls its route declares', () => {
  it('for every program, key, audit and me route, per table and index', async () => {
    const used = new Map<string, Set<string>>()
    const record = (table: unknown, action: string, index?: unknown) => {
      if (current === undefined) return
      const calls = used.get(current) ?? new Set<string>()
      calls.add(`${tableKey(table)}${index ? `/index/${index}` : ''} dynamodb:${action}`)
      used.set(current, calls)
    }
    const stop = onDynamoDb((command, input) => {
      const action = command.replace(/Command$/, '')
      if (action === 'TransactWriteItems') {
        for (const item of input.TransactItems as Record<string, { TableName: string }>[]) {
          for (const [kind, body] of Object.entries(item)) {
            record(body.TableName, kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`)
          }
        }
      } else if (action === 'BatchGetItem') {
        for (const table of Object.keys(input.RequestItems as object)) record(table, action)
      } else {
        record(input.TableName, action, input.IndexName)
      }
    })
    const base = `/manage/issuers/${a.issuerId}`
    const [oldKey, otherOldKey] = await Promise.all([legacyKey(a.issuerId), legacyKey(a.issuerId)])
    try {
      await call(admin, 'GET', '/manage/me')
      await call(admin, 'GET', `${base}/programs`)
      const program = await call(admin, 'POST', `${base}/programs`, { name: 'IAM', mode: 'TEST' })
      await call(admin, 'GET', `${base}/programs/${program.body.id}`)
      for (const action of ['pause', 'resume', 'close']) {
        await call(admin, 'POST', `${base}/programs/${program.body.id}/${action}`)
      }
      await call(admin, 'GET', `${base}/keys`)
      await call(admin, 'POST', `${base}/keys`, { mode: 'TEST' })
      // Keys made before key-id pointers are found through the byKeyId index.
      expect((await call(admin, 'POST', `${base}/keys/${oldKey.keyId}/roll`)).status).toBe(201)
      expect((await call(admin, 'POST', `${base}/keys/${otherOldKey.keyId}/revoke`)).status).toBe(
        200,
      )
      await call(admin, 'GET', `${base}/audit`)
    } finally {
      stop()
    }
    const ids = ['ManageMe', 'ListPrograms', 'CreateProgram', 'GetProgram', 'PauseProgram']
    ids.push('ResumeProgram', 'CloseProgram', 'ListKeys', 'CreateKey', 'RollKey', 'RevokeKey')
    ids.push('ListAudit')
    const mine = (ROUTES as readonly Route[]).filter((r) => ids.includes(r.id))
    expect(mine).toHaveLength(12)
    for (const route of mine) {
      const declared = [
        ...Object.entries(route.access).flatMap(([table, actions]) =>
          (actions ?? []).map((action) => `${table} ${action}`),
        ),
        ...Object.entries(route.indexes ?? {}).flatMap(([table, byIndex]) =>
          Object.entries(byIndex ?? {}).flatMap(([index, actions]) =>
            actions.map((action) => `${table}/index/${index} ${action}`),
          ),
        ),
      ].sort()
      expect({ route: route.id, calls: [...(used.get(route.routeKey) ?? [])].sort() }).toEqual({
        route: route.id,
        calls: declared,
      })
    }
  })
})

describe('no key in any log line', () => {
  it('logs no secret, no part of one and no hash of the keys the routes create and roll', async () => {
    // A second copy of the handlers, loaded with DEBUG logging (the rest of the suite runs with
    // logs off), behind its own local server with the same authorizer.
    let handlers = new Map<string, LambdaHandler>()
    let client = dynamodb
    process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG'
    await jest.isolateModulesAsync(async () => {
      const isolated = require('../../functions/composition').buildRuntime(config) as Runtime
      handlers = await require('../../local/http-server').loadRouteHandlers(isolated)
      client = isolated.dynamodb
    })
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT'
    const server = createLocalApi(handlers, { authorizer: testAuthorizer() })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const path = `/manage/issuers/${a.issuerId}`

    const captured: string[] = []
    const original = { out: process.stdout.write, err: process.stderr.write }
    const capture = (stream: NodeJS.WriteStream) =>
      ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        captured.push(String(chunk))
        return (stream === process.stdout ? original.out : original.err).apply(stream, [
          chunk,
          ...rest,
        ] as never)
      }) as typeof process.stdout.write
    process.stdout.write = capture(process.stdout)
    process.stderr.write = capture(process.stderr)
    const secrets: string[] = []
    try {
      const created = await manage(base, admin, 'POST', `${path}/keys`, { mode: 'TEST' })
      secrets.push(created.body.secret as string)
      const rolled = await manage(base, admin, 'POST', `${path}/keys/${created.body.id}/roll`)
      secrets.push(rolled.body.secret as string)
      await postGrant(base, a.programs.TEST, rolled.body.secret as string)
      await manage(base, viewer, 'GET', `${path}/keys`)
      await manage(base, viewer, 'GET', `${path}/audit`)
      await manage(base, admin, 'POST', `${path}/keys/${rolled.body.id}/revoke`)
      await manage(base, admin, 'POST', `${path}/keys`, { mode: 'TEST', secret: secrets[0] })
      await manage(base, viewer, 'POST', `${path}/keys`, { mode: 'TEST' })
      // An unexpected failure is logged in full, stack and all: still no key in it.
      client.middlewareStack.add(
        () => async () => {
          throw Object.assign(new Error('Unexpected failure'), { name: 'ValidationException' })
        },
        { step: 'initialize', name: 'unexpected-failure' },
      )
      const failed = await manage(base, admin, 'POST', `${path}/keys`, { mode: 'LIVE' })
      expect(failed.status).toBe(500)
    } finally {
      server.close()
      process.stdout.write = original.out
      process.stderr.write = original.err
    }
    const logs = captured.join('')
    expect(logs).toContain('"message":"request"')
    expect(logs).toContain('"message":"unhandled error"')
    expect(secrets).toHaveLength(2)
    expectNoSecret([logs], secrets)
  })
})
