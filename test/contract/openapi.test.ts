import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { ROUTES } from '../../functions/routes'
import { buildOpenApi } from '../../lib/openapi'
import {
  type Call,
  grantBody,
  newIssuer,
  postGrant,
  request,
  setProgramStatus,
  startApi,
} from '../support/api'
import { PROJECT_ROOT } from '../support/project-root'
import { dynamodb } from '../support/runtime'

type Doc = ReturnType<typeof buildOpenApi>
const doc = buildOpenApi()

describe('openapi.json', () => {
  it('is exactly what the code generates (run `npm run openapi` after changing the contract)', () => {
    const checkedIn = JSON.parse(readFileSync(join(PROJECT_ROOT, 'openapi.json'), 'utf8'))
    expect(checkedIn).toEqual(JSON.parse(JSON.stringify(doc)))
  })

  it('documents every route the stack deploys (functions/routes.ts), and no route it does not', () => {
    const paths = doc.paths as Record<string, Record<string, unknown>>
    const routes = ROUTES.filter((r) => r.routeKey !== '$default').map((r) => {
      const [method = '', path = ''] = r.routeKey.split(' ')
      return `${method.toLowerCase()} ${path}`
    })
    const documented = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'put', 'post', 'patch', 'delete'].includes(key))
        .map((method) => `${method} ${path}`),
    )
    expect(documented.sort()).toEqual(routes.sort())
  })
})

describe('the contract and the behaviour agree', () => {
  let api: Awaited<ReturnType<typeof startApi>>
  beforeAll(async () => {
    api = await startApi()
  })
  afterAll(() => api.close())

  it('is served by the local server at /openapi.json, rendered at /docs without any CDN', async () => {
    const served = await request(api.baseUrl, 'GET', '/openapi.json')
    expect(served.status).toBe(200)
    expect(served.body).toEqual(JSON.parse(JSON.stringify(doc)))
    const page = await request(api.baseUrl, 'GET', '/docs')
    expect(page.headers.get('content-type')).toContain('text/html')
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
    expect(assets.every((a) => a.startsWith('/'))).toBe(true)
    for (const asset of assets) {
      const fetched = await request(api.baseUrl, 'GET', asset)
      expect({ asset, status: fetched.status, size: fetched.text.length > 1000 }).toEqual({
        asset,
        status: 200,
        size: true,
      })
    }
  })

  const resolve = (node: unknown): Record<string, unknown> => {
    let current = node as Record<string, unknown>
    while (typeof current?.$ref === 'string') {
      current = (current.$ref as string)
        .slice(2)
        .split('/')
        .reduce(
          (o: Record<string, unknown>, k) => o[k] as Record<string, unknown>,
          doc as unknown as Record<string, unknown>,
        )
    }
    return current
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)

  /** Validates one real answer against the document: status listed, headers, body schema. */
  const check = (path: keyof Doc['paths'], method: 'post' | 'get', call: Call) => {
    const operation = (doc.paths[path] as Record<string, { responses: Record<string, unknown> }>)[
      method
    ]
    const response = resolve(operation?.responses[String(call.status)])
    expect({ status: call.status, documented: response !== undefined }).toEqual({
      status: call.status,
      documented: true,
    })
    const contentType = call.headers.get('content-type') as string
    const content = resolve(response.content) as Record<string, { schema: unknown }>
    expect(Object.keys(content)).toContain(contentType)
    const validate = ajv.compile(resolve(content[contentType]?.schema))
    if (!validate(call.body))
      throw new Error(`${call.status} body does not match: ${ajv.errorsText(validate.errors)}`)
    for (const [header, spec] of Object.entries(resolve(response.headers) ?? {})) {
      const value = call.headers.get(header)
      const { required, schema } = resolve(spec) as { required?: boolean; schema: unknown }
      if (required) expect({ header, present: value !== null }).toEqual({ header, present: true })
      if (value !== null && !ajv.validate(resolve(schema), value))
        throw new Error(`header ${header}: ${value}`)
    }
    seen.add(`${method} ${path} ${call.status}`)
  }
  const seen = new Set<string>()

  it('validates a real answer for every status the document lists', async () => {
    const issuer = await newIssuer({ pool: 3 })
    const other = await newIssuer()
    const post = '/programs/{programId}/grant-tokens' as const
    const get = '/programs/{programId}/grants/{grantId}' as const
    const p = issuer.programs.TEST
    const k = issuer.keys.TEST

    const created = await postGrant(
      api.baseUrl,
      p,
      k,
      grantBody({ recipient: { email: 'ann@example.com', name: 'Ann' } }),
      {
        'idempotency-key': 'contract-1',
      },
    )
    check(post, 'post', created)
    check(
      post,
      'post',
      await postGrant(
        api.baseUrl,
        p,
        k,
        grantBody({ recipient: { email: 'ann@example.com', name: 'Ann' } }),
        { 'idempotency-key': 'contract-1' },
      ),
    )
    check(post, 'post', await postGrant(api.baseUrl, p, k, grantBody({ amount: 0 })))
    check(post, 'post', await postGrant(api.baseUrl, p, k, '{'))
    check(post, 'post', await postGrant(api.baseUrl, p, undefined))
    check(post, 'post', await postGrant(api.baseUrl, issuer.programs.LIVE, k))
    check(post, 'post', await postGrant(api.baseUrl, other.programs.TEST, k))
    check(post, 'post', await postGrant(api.baseUrl, p, k, grantBody({ amount: 5 })))
    check(
      post,
      'post',
      await postGrant(api.baseUrl, p, k, JSON.stringify(grantBody({ reason: 'x'.repeat(20_000) }))),
    )
    check(
      post,
      'post',
      await postGrant(api.baseUrl, p, k, grantBody(), { 'content-type': 'text/plain' }),
    )
    check(
      post,
      'post',
      await postGrant(api.baseUrl, p, k, grantBody({ amount: 2 }), {
        'idempotency-key': 'contract-1',
      }),
    )
    await setProgramStatus(other.programs.TEST, 'paused')
    check(post, 'post', await postGrant(api.baseUrl, other.programs.TEST, other.keys.TEST))

    const location = created.headers.get('location') as string
    const read = (path: string, key?: string) =>
      request(api.baseUrl, 'GET', path, { headers: key ? { 'x-api-key': key } : {} })
    check(get, 'get', await read(location, k))
    check(get, 'get', await read(location))
    check(get, 'get', await read(location, issuer.keys.LIVE))
    check(get, 'get', await read(location, other.keys.TEST))

    // 503, 409 request_conflict and 500 come from DynamoDB misbehaving: injected.
    const faulty = async (make: () => Error, commands: string[], act: () => Promise<Call>) => {
      const name = `contract-fault-${Math.random()}`
      dynamodb.middlewareStack.add(
        (next, context) => async (args) => {
          if (commands.includes(context.commandName ?? '')) throw make()
          return next(args)
        },
        { step: 'initialize', name },
      )
      try {
        return await act()
      } finally {
        dynamodb.middlewareStack.remove(name)
      }
    }
    const awsError = (name: string) =>
      Object.assign(new Error(name), { name, $metadata: { httpStatusCode: 400 } })
    const grant = () => postGrant(api.baseUrl, other.programs.LIVE, other.keys.LIVE)
    check(
      post,
      'post',
      await faulty(
        () => awsError('ProvisionedThroughputExceededException'),
        ['TransactWriteItemsCommand'],
        grant,
      ),
    )
    check(
      post,
      'post',
      await faulty(
        () => awsError('TransactionConflictException'),
        ['TransactWriteItemsCommand'],
        grant,
      ),
    )
    check(
      post,
      'post',
      await faulty(() => awsError('ValidationException'), ['TransactWriteItemsCommand'], grant),
    )
    check(
      get,
      'get',
      await faulty(
        () => awsError('ThrottlingException'),
        ['BatchGetItemCommand'],
        () => read(location, k),
      ),
    )
    check(
      get,
      'get',
      await faulty(
        () => awsError('ValidationException'),
        ['BatchGetItemCommand'],
        () => read(location, k),
      ),
    )

    // Every documented status of the grant paths was produced and matched; nothing was produced
    // undocumented. The read paths (`GET /programs/{programId}` and its grants) have the same
    // check in test/http/integrator-reads.http.test.ts.
    const grantPaths = [
      '/programs/{programId}/grant-tokens',
      '/programs/{programId}/grants/{grantId}',
    ]
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(grantPaths))
    const documented = Object.entries(doc.paths)
      .filter(([path]) => grantPaths.includes(path))
      .flatMap(([path, ops]) =>
        Object.entries(ops as Record<string, { responses: Record<string, unknown> }>).flatMap(
          ([method, op]) =>
            Object.keys(op.responses).map((status) => `${method} ${path} ${status}`),
        ),
      )
    expect([...seen].sort()).toEqual(documented.sort())
  })
})
