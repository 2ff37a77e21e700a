import { randomUUID } from 'node:crypto'
import { parseList } from 'structured-headers'
import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { LEASE_LIFETIME_MS } from '../../functions/core/rate-limiter'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { scanAll } from '../../functions/stores/paging'
import * as ui from './browser'

/**
 * A key's rate limit on the API keys page (issue 33), in Chromium against `npm start`: an admin
 * sees the TEST default, lowers it in the dialog (a typo answered by the page, more than the
 * default by the service, each next to the field), sees the new limit in the table, and sets it
 * back to the default; a viewer reads the limit without the action. Checked by axe-core and
 * photographed. Then issue 33's "Done when" on the same `npm start`: a burst of 200 grants in one
 * second on a TEST key, and a limit lowered in the console showing in the grant API's
 * `RateLimit-Policy` within its bound. The fields are parsed with `structured-headers` (RFC 9651).
 */

/** The run's shared server (an issuer of this file's own) and Chromium. */
const run = {} as Awaited<ReturnType<typeof ui.startServerAndBrowser>>
beforeAll(async () => Object.assign(run, await ui.startServerAndBrowser()), ui.SET_UP_MS)
const { visible, errorNextTo } = ui

const keysPath = () => `/app/${run.server.seed.issuerId}/test/keys`
const masked = () =>
  `${run.server.seed.keys.TEST.slice(0, 8)}…${run.server.seed.keys.TEST.slice(-4)}`

it('lets an admin lower a key rate limit, with errors next to the field, and shows it to a viewer', async () => {
  const { page } = await ui.signedInMember(run.server, run.browser, 'admin')
  const problems = ui.watchConsole(page)
  await page.goto(keysPath())
  const row = page.getByRole('row').filter({ hasText: masked() })
  await visible(row.getByRole('cell', { name: '25/s default' }))

  await page.getByRole('button', { name: `Change limit key ${masked()}` }).click()
  const dialog = page.getByRole('dialog', { name: `Rate limit of key ${masked()}` })
  await visible(dialog.getByText('Now 25 requests a second, the TEST default'))
  const field = 'Requests a second'

  // The page's own check first: nothing is sent.
  await dialog.getByLabel(field, { exact: true }).fill('fast')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  expect(await errorNextTo(page, field)).toMatch(/Enter a whole number of requests a second/)

  // The service's rule: a person only lowers a key's limit.
  await dialog.getByLabel(field, { exact: true }).fill('30')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  expect(await errorNextTo(page, field)).toMatch(
    /rateLimit must be a whole number from 1 to 25, got 30; only the operator raises/,
  )
  await ui.checkPage(page, 'console-key-limit')

  await dialog.getByLabel(field, { exact: true }).fill('10')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: `Key ${masked()} now allows 10 requests a second` }),
  )
  await visible(row.getByRole('cell', { name: '10/s own limit' }))
  // The refused save's 400 is the only failed load.
  expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([])

  // A viewer reads the limit; no action.
  const viewer = await ui.signedInMember(run.server, run.browser, 'viewer')
  await viewer.page.goto(keysPath())
  const seen = viewer.page.getByRole('row').filter({ hasText: masked() })
  await visible(seen.getByRole('cell', { name: '10/s own limit' }))
  expect(await viewer.page.getByRole('button', { name: /^Change limit/ }).count()).toBe(0)

  // Back to the default: the field left empty.
  await page.getByRole('button', { name: `Change limit key ${masked()}` }).click()
  await dialog.getByLabel(field, { exact: true }).fill('')
  await dialog.getByRole('button', { name: 'Save the limit' }).click()
  await visible(
    page.getByRole('status').filter({ hasText: 'now allows 25 requests a second (the default)' }),
  )
  await visible(row.getByRole('cell', { name: '25/s default' }))
})

/**
 * The bound within which a changed limit shows, by design: the key check's cache (a request
 * arriving CHECK_BOUND_MS after the change re-reads the key), then the tokens leased under the old
 * limit (spent within LEASE_LIFETIME_MS or dropped). Issue 33 asks for 2 s.
 */
const CHANGE_BOUND_MS = CHECK_BOUND_MS + LEASE_LIFETIME_MS

/** A list field's one member, as RFC 9651 parses it: its name and its parameters. */
const field = (headers: Headers, name: string) => {
  const [member, ...rest] = parseList(headers.get(name) ?? '')
  expect(rest).toEqual([])
  return { name: member?.[0], params: Object.fromEntries(member?.[1] ?? []) }
}

type Sent = { status: number; headers: Headers; body: Record<string, unknown>; sentAt: number }

/** A grant of 1 share with the key, its Idempotency-Key fresh. */
const grant = async (apiKey: string, programId: string): Promise<Sent> => {
  const sentAt = Date.now()
  const response = await fetch(`${run.server.baseUrl}/programs/${programId}/grant-tokens`, {
    method: 'POST',
    headers: {
      'x-api-key': apiKey,
      'content-type': 'application/json',
      'idempotency-key': `burst-${randomUUID()}`,
    },
    body: JSON.stringify({ recipient: { email: 'burst@example.com' }, reason: 'Burst', amount: 1 }),
  })
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
    sentAt,
  }
}

/** The program as the grant API shows it to the key. */
const programOf = async (apiKey: string, programId: string) => {
  const response = await fetch(`${run.server.baseUrl}/programs/${programId}`, {
    headers: { 'x-api-key': apiKey },
  })
  return { status: response.status, headers: response.headers, body: await response.json() }
}

/** Every grant item of the program in the server's table (a Scan: the run's other files write there too). */
const grantsOf = async (programId: string) => {
  const client = createDocumentClient(
    createDynamoDbClient({ endpoint: run.server.endpoint, region: 'local' }),
  )
  try {
    return await scanAll<{ grantId: string }>(
      <T>(command: { readonly input: object }) => client.send(command as never) as Promise<T>,
      {
        TableName: run.server.tables.grants,
        ConsistentRead: true,
        FilterExpression: 'programId = :p AND begins_with(grantId, :g)',
        ExpressionAttributeValues: { ':p': programId, ':g': 'gr_' },
      },
    )
  } finally {
    client.destroy()
  }
}

/** A fresh TEST program (pool 1,000) and TEST key of the file's issuer, made with the admin CLI. */
const freshProgramAndKey = async () => {
  const issuer = run.server.seed.issuerId
  const [program, key] = await Promise.all([
    ui.adminCli(
      run.server,
      `program create --issuer ${issuer} --mode TEST --name Burst --pool 1000`.split(' '),
    ),
    ui.adminCli(run.server, ['key', 'create', '--issuer', issuer, '--mode', 'TEST']),
  ])
  return {
    programId: program.programId as string,
    keyId: key.keyId as string,
    secret: key.secret as string,
  }
}

/** The burst's key and answers, which the request log's test then finds. */
const burst = { keyId: '', secret: '', answers: [] as Sent[] }

it('answers a burst of 200 grants in one second with some 201s and 429s, writing only the 201s', async () => {
  const { programId, keyId, secret } = await freshProgramAndKey()
  const answers = await Promise.all(Array.from({ length: 200 }, () => grant(secret, programId)))
  const made = answers.filter((a) => a.status === 201)
  const refused = answers.filter((a) => a.status === 429)
  expect(made.length + refused.length).toBe(200)
  expect(made.length).toBeGreaterThan(0)
  expect(refused.length).toBeGreaterThan(0)
  for (const answer of answers) {
    expect(field(answer.headers, 'ratelimit-policy')).toEqual({
      name: 'key',
      params: { q: 25, w: 1 },
    })
    const limit = field(answer.headers, 'ratelimit')
    expect(limit.name).toBe('key')
    expect(limit.params).toEqual({ r: expect.any(Number), t: expect.any(Number) })
  }
  for (const answer of refused) {
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(answer.body).toMatchObject({ status: 429, code: 'rate_limited' })
    expect(answer.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
    expect(field(answer.headers, 'ratelimit').params.r).toBe(0)
  }

  // After Retry-After, the key is taken again.
  const wait = Math.max(...refused.map((a) => Number(a.headers.get('retry-after'))))
  await new Promise((resolve) => setTimeout(resolve, wait * 1000))
  const again = [await grant(secret, programId), await grant(secret, programId)]
  expect(again.map((a) => a.status)).toEqual([201, 201])

  // The pool is exact, and no refused request wrote anything.
  const granted = [...made, ...again]
  const program = await programOf(secret, programId)
  expect(program.body).toMatchObject({ issued: granted.length, remaining: 1000 - granted.length })
  const stored = (await grantsOf(programId)).map((g) => g.grantId).sort()
  expect(stored).toEqual(granted.map((a) => a.body.id as string).sort())
  Object.assign(burst, { keyId, secret, answers: [...answers, ...again] })
})

it("shows the burst in the request log: by key and status, by a 429's Request-Id, without a key, body or address", async () => {
  expect(burst.answers).toHaveLength(202)
  const { page, token } = await ui.signedInMember(run.server, run.browser, 'viewer')
  const issuerId = run.server.seed.issuerId
  const list = async (query: string) => {
    const entries: Record<string, unknown>[] = []
    let cursor: string | undefined
    do {
      const url = `${run.server.baseUrl}/manage/issuers/${issuerId}/requests?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
      expect(response.status).toBe(200)
      const body = (await response.json()) as {
        data: Record<string, unknown>[]
        nextCursor: string | null
      }
      entries.push(...body.data)
      cursor = body.nextCursor ?? undefined
    } while (cursor)
    return entries
  }
  const refused = burst.answers.filter((a) => a.status === 429)
  // The local writer flushes every 250 ms (local/request-log-flusher.ts, its own test): wait for it.
  // The burst's grants (the key also read its program once, a GET the log has too).
  const GRANT_ROUTE = 'POST /programs/{programId}/grant-tokens'
  let all: Record<string, unknown>[] = []
  while (all.length < burst.answers.length) {
    all = (await list(`mode=TEST&keyId=${burst.keyId}&limit=100`)).filter(
      (e) => e.route === GRANT_ROUTE,
    )
    if (all.length < burst.answers.length) await sleep(100)
  }
  expect(all.map((e) => e.requestId).sort()).toEqual(
    burst.answers.map((a) => a.headers.get('request-id')).sort(),
  )
  const tooMany = await list(`mode=TEST&keyId=${burst.keyId}&status=429&limit=100`)
  expect(tooMany.map((e) => e.requestId).sort()).toEqual(
    refused.map((a) => a.headers.get('request-id')).sort(),
  )
  for (const entry of tooMany) {
    expect(entry).toMatchObject({
      status: 429,
      code: 'rate_limited',
      keyId: burst.keyId,
      mode: 'TEST',
    })
    expect(entry.route).toBe(GRANT_ROUTE)
  }
  const text = JSON.stringify(all)
  expect(text).not.toContain(burst.secret)
  expect(text).not.toContain('burst@example.com')
  expect(text).not.toContain('Burst')

  // A 429's Request-Id, pasted into the console's search, opens that request.
  const one = refused[0] as Sent
  const requestId = one.headers.get('request-id') as string
  expect(one.body.requestId).toBe(requestId)
  await page.goto(`/app/${issuerId}/test/logs`)
  await page.getByLabel('Request id', { exact: true }).fill(requestId)
  await page.getByRole('button', { name: 'Find request' }).click()
  await visible(page.getByRole('heading', { name: 'POST 429 rate_limited' }))
  await page.context().close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it(`shows a limit lowered in the console in RateLimit-Policy within ${CHANGE_BOUND_MS} ms of the change`, async () => {
  const { programId, secret } = await freshProgramAndKey()
  const { page } = await ui.signedInMember(run.server, run.browser, 'admin')
  await page.goto(keysPath())
  const key = `${secret.slice(0, 8)}…${secret.slice(-4)}`
  await page.getByRole('button', { name: `Change limit key ${key}` }).click()
  await page.getByLabel('Requests a second', { exact: true }).fill('10')

  // The key in use all along, as an integration's would be: its check stays cached on the server.
  const seen: { sentAt: number; answeredAt: number; q: unknown }[] = []
  let changedBy: number | undefined
  const pastBound = () =>
    changedBy === undefined
      ? []
      : seen.filter((x) => x.sentAt >= (changedBy as number) + CHANGE_BOUND_MS)
  const polling = (async () => {
    // A few requests past the bound, however long each took to answer.
    while (pastBound().length < 3) {
      const sentAt = Date.now()
      const answer = await programOf(secret, programId)
      const q = field(answer.headers, 'ratelimit-policy').params.q
      seen.push({ sentAt, answeredAt: Date.now(), q })
      await sleep(100)
    }
  })()
  while (seen.length < 2) await sleep(50)

  const clickedAt = Date.now()
  const saved = page.waitForResponse((r) => r.request().method() === 'PATCH')
  await page.getByRole('button', { name: 'Save the limit' }).click()
  expect((await saved).status()).toBe(200)
  // The change is stored by now: a request sent the bound after this must see it.
  changedBy = Date.now()
  await polling

  // Answered before the change was asked for: the old limit. Sent past the bound: the new one.
  const before = seen.filter((x) => x.answeredAt < clickedAt)
  expect(before.length).toBeGreaterThan(0)
  expect(before.map((x) => x.q)).toEqual(before.map(() => 25))
  const late = pastBound()
  expect(late.length).toBe(3)
  expect(late.map((x) => x.q)).toEqual([10, 10, 10])
  // In between, either; never anything else.
  expect(seen.every((x) => x.q === 10 || x.q === 25)).toBe(true)
  expect(CHANGE_BOUND_MS).toBeLessThanOrEqual(2_000)
})
