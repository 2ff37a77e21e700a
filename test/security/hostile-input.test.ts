import { request as httpRequest } from 'node:http'
import fc from 'fast-check'
import { generateApiKey } from '../../functions/domain/api-key'
import { newId } from '../../functions/domain/ids'
import { newIssuer, programState, startApi } from '../support/api'

/**
 * Property-based hostile input: thousands of random and near-valid requests (bodies, headers,
 * paths). Every answer must be the documented success or a 4xx problem+json, never a 5xx, and
 * nothing may be written except by the requests that got a 201.
 */
const RUNS = Number(process.env.HOSTILE_RUNS ?? 5_000)

type Raw = { method: string; path: string; headers: [string, string][]; body?: string }
type Answer = { status: number; contentType: string; text: string; replayed: boolean }

let api: Awaited<ReturnType<typeof startApi>>
let port: number
beforeAll(async () => {
  api = await startApi()
  port = Number(new URL(api.baseUrl).port)
})
afterAll(() => api.close())

const send = (raw: Raw) =>
  new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: raw.method,
        path: raw.path,
        // Raw headers (repeats and casing kept) switch off Node's defaults, Host included.
        headers: [
          ['Host', `127.0.0.1:${port}`],
          ...(raw.body === undefined
            ? []
            : [['Content-Length', String(Buffer.byteLength(raw.body))]]),
          ...raw.headers,
        ].flat(),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
            replayed: res.headers['idempotent-replayed'] === 'true',
          }),
        )
      },
    )
    req.on('error', reject)
    if (raw.body !== undefined) req.write(raw.body)
    req.end()
  })

it(`answers ${RUNS} hostile requests with 2xx or 4xx problem+json only, writing nothing for rejections`, async () => {
  const issuer = await newIssuer()
  const programId = issuer.programs.TEST
  const validKey = issuer.keys.TEST
  const before = await programState(programId)

  const json = (value: unknown) => JSON.stringify(value)
  const rawNumber = fc.constantFrom(
    '1e309',
    '-0',
    '1.0',
    '1e2',
    '0.5',
    '-1',
    '9007199254740993',
    '1E3',
    '00',
    '0x10',
    'NaN',
    'Infinity',
    '"1"',
    'null',
    'true',
    '[]',
    '{}',
    '1',
  )
  const text = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'tab\t',
      'line\nbreak',
      '\u202e',
      '\ud800',
      '\uffff',
      '\u{1f600}',
    ),
    fc.string({ minLength: 400, maxLength: 900 }),
  )
  const email = fc.oneof(
    fc.emailAddress(),
    text,
    fc.constantFrom(' ANN@Example.COM ', `${'a'.repeat(250)}@x.io`, 'a@b', '@', 'a@b.co\u0000'),
  )
  const validBody = fc.record({
    recipient: fc.record({ email: fc.emailAddress() }),
    reason: fc.constantFrom('Referral bonus', 'Welcome'),
    amount: fc.integer({ min: 1, max: 5 }),
  })
  const body = fc.oneof(
    { arbitrary: validBody.map(json), weight: 3 },
    fc
      .record({
        recipient: fc.oneof(fc.record({ email }), fc.jsonValue()),
        reason: fc.oneof(text, fc.jsonValue()),
        amount: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      })
      .map(json),
    fc
      .tuple(email, text, rawNumber)
      .map(([e, r, n]) => `{"recipient":{"email":${json(e)}},"reason":${json(r)},"amount":${n}}`),
    validBody.chain((b) =>
      fc
        .dictionary(fc.string({ maxLength: 10 }), fc.jsonValue())
        .map((extra) => json({ ...extra, ...b, [`x${Object.keys(extra).length}`]: 1 })),
    ),
    validBody.map((b) => `{"amount":7,${json(b).slice(1)}`), // duplicate key
    validBody.map((b) => `\ufeff${json(b)}`),
    fc.jsonValue().map(json),
    fc.string({ maxLength: 200 }),
    fc.constantFrom(
      '',
      '{',
      '[[[[[[[[[[',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      'x'.repeat(20_000),
    ),
  )
  // Weighted towards requests that get past routing and content type, so the deeper checks
  // (key, body fields, idempotency, the transaction) see most of the traffic.
  const keyHeader = fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([['x-api-key', validKey]]), weight: 6 },
    fc.constant<[string, string][]>([]),
    fc.constantFrom<[string, string][]>(
      [['x-api-key', validKey]],
      [['X-API-KEY', validKey]],
      [['X-Api-Key', issuer.keys.LIVE]],
      [['x-api-key', generateApiKey('TEST')]],
      [['x-api-key', `${validKey.slice(0, -1)}${validKey.endsWith('A') ? 'B' : 'A'}`]],
      [
        ['x-api-key', validKey],
        ['x-api-key', validKey],
      ],
      [['x-api-key', '']],
    ),
    fc
      .string({ unit: fc.constantFrom(...'abcXYZ019_-. '), maxLength: 60 })
      .map((k): [string, string][] => [['x-api-key', k]]),
  )
  const contentType = fc.oneof(
    {
      arbitrary: fc.constant<[string, string][]>([['Content-Type', 'application/json']]),
      weight: 6,
    },
    fc.constant<[string, string][]>([]),
    fc
      .constantFrom(
        'application/json',
        'Application/JSON',
        'application/json; charset=utf-8',
        'application/json;charset="UTF-8"',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'multipart/form-data',
        'application/problem+json',
        '',
      )
      .map((v): [string, string][] => [['Content-Type', v]]),
  )
  const idempotency = fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([]), weight: 3 },
    fc
      .string({ unit: fc.constantFrom(...'abc123-_ ~!'), maxLength: 20 })
      .map((v): [string, string][] => [['Idempotency-Key', v]]),
    fc.constant<[string, string][]>([['Idempotency-Key', 'k'.repeat(300)]]),
  )
  const segment = fc.oneof(
    fc.constant(programId),
    fc.constant(newId('program')),
    fc.constant(issuer.programs.LIVE),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.constantFrom('%2F', 'a%2Fb', '..', '%00', '%E2%82%AC', 'x'.repeat(3000), '%', '%zz'),
  )
  const path = fc.oneof(
    { arbitrary: fc.constant(`/programs/${programId}/grant-tokens`), weight: 6 },
    segment.map((p) => `/programs/${p}/grant-tokens`),
    fc
      .tuple(segment, fc.oneof(fc.constant(newId('grant')), segment))
      .map(([p, g]) => `/programs/${p}/grants/${g}`),
    fc.string({ maxLength: 50 }).map((s) => `/${encodeURIComponent(s)}`),
    fc.constantFrom(
      '/',
      '/programs',
      '/programs//grant-tokens',
      `/programs/${programId}/grant-tokens/`,
      `/programs/${programId}/grant-tokens?x=1`,
    ),
  )
  const requestArb = fc.record({
    method: fc.constantFrom(
      'POST',
      'POST',
      'POST',
      'POST',
      'POST',
      'POST',
      'GET',
      'PUT',
      'DELETE',
      'PATCH',
    ),
    path,
    headers: fc.tuple(keyHeader, contentType, idempotency).map(([a, b, c]) => [...a, ...b, ...c]),
    body: fc.option(body, { nil: undefined, freq: 8 }),
  })

  const created = new Map<string, number>()
  const statuses = new Map<number, number>()
  await fc.assert(
    fc.asyncProperty(requestArb, async (raw) => {
      const answer = await send(raw)
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
      const fail = (why: string) => {
        throw new Error(
          `${why}: ${answer.status} ${answer.contentType} ${answer.text.slice(0, 300)}`,
        )
      }
      if (answer.status >= 500 || answer.status < 200) fail('not 2xx/4xx')
      if (answer.status >= 400) {
        if (answer.contentType !== 'application/problem+json') fail('error without problem+json')
        const problem = JSON.parse(answer.text)
        if (
          problem.status !== answer.status ||
          typeof problem.code !== 'string' ||
          typeof problem.detail !== 'string'
        ) {
          fail('malformed problem')
        }
        return
      }
      if (answer.status !== 201 && answer.status !== 200) fail('unexpected success status')
      const grant = JSON.parse(answer.text)
      if (answer.status === 201 && !answer.replayed) created.set(grant.id, grant.amount)
    }),
    { numRuns: RUNS, seed: Number(process.env.HOSTILE_SEED ?? 1125), endOnFailure: true },
  )

  // Only the 201s wrote, each once; everything rejected left the database alone.
  const after = await programState(programId)
  const newGrants = after.grants.filter((g) => !before.grants.some((b) => b.grantId === g.grantId))
  expect(new Set(newGrants.map((g) => g.grantId))).toEqual(new Set(created.keys()))
  expect(after.issued - before.issued).toBe([...created.values()].reduce((a, b) => a + b, 0))
  expect((await programState(issuer.programs.LIVE)).grants).toHaveLength(0)
  process.stdout.write(
    `\nhostile input: ${RUNS} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; grants written ${created.size}\n`,
  )
  expect([...statuses.keys()].filter((s) => s >= 500)).toEqual([])
})
