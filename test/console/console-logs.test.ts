import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { RequestLogEntry } from '../../functions/domain/request-log'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { makeEntries, putRequestLog } from '../manage/request-log-support'
import { postGrant } from '../support/api'
import * as ui from './browser'

/**
 * The Logs page (issue 33), in Chromium against `npm start`: a viewer reads the issuer's request
 * log newest first, filters it by mode, key and status (a bad status answered next to its field),
 * reads more, finds a request by its id (a malformed id answered next to the field, an unknown
 * one not found), opens each request's page, and follows a grant's link to the request that made
 * it. The entries are put in the server's table in the writer's layout. Checked by axe-core.
 */

const run = {} as Awaited<ReturnType<typeof ui.startServerAndBrowser>>
beforeAll(async () => Object.assign(run, await ui.startServerAndBrowser()), ui.SET_UP_MS)
const { visible, errorNextTo } = ui

const newestFirst = (list: readonly RequestLogEntry[]) =>
  [...list].sort((x, y) => (x.requestId < y.requestId ? 1 : -1))

/** The issuer's key ids of a mode, as the management API lists them. */
const keyIds = async (token: string, mode: 'TEST' | 'LIVE') => {
  const answer = await fetch(
    `${run.server.baseUrl}/manage/issuers/${run.server.seed.issuerId}/keys?mode=${mode}`,
    { headers: { authorization: `Bearer ${token}` } },
  )
  return ((await answer.json()) as { keys: { id: string }[] }).keys.map((k) => k.id)
}

it('lists, filters and finds requests for a viewer, and links a grant to its request', async () => {
  const { page, token } = await ui.signedInMember(run.server, run.browser, 'viewer')
  const problems = ui.watchConsole(page)
  const { issuerId } = run.server.seed
  const keys = { TEST: await keyIds(token, 'TEST'), LIVE: await keyIds(token, 'LIVE') }
  const client = createDocumentClient(
    createDynamoDbClient({ endpoint: run.server.endpoint, region: 'local' }),
  )
  const target = { client, table: run.server.tables.requests }
  try {
    // 60 entries, 40 of them TEST: more than a page of the console (25).
    const entries = makeEntries(issuerId, keys, 60, Date.now() - 60 * 60_000)
    await putRequestLog(entries, target)
    const tests = newestFirst(entries.filter((e) => e.mode === 'TEST'))

    await page
      .getByRole('navigation', { name: 'Console' })
      .getByRole('link', { name: 'Logs' })
      .click()
    const table = await visible(page.getByRole('table', { name: 'Requests, newest first' }))
    const rows = table.locator('tbody tr')
    // The mode the console is in (Test), newest first, a page of 25, then more.
    await visible(rows.first().getByText(tests[0]?.requestId as string))
    expect(await rows.count()).toBe(25)
    expect(await rows.locator('th code').allInnerTexts()).toEqual(
      tests.slice(0, 25).map((e) => e.requestId),
    )
    await ui.checkPage(page, 'logs')
    await page.getByRole('button', { name: 'Show more requests' }).click()
    await visible(rows.nth(39))
    expect(await rows.locator('th code').allInnerTexts()).toEqual(tests.map((e) => e.requestId))
    // Never a key (its secret) on the page.
    const text = await page.locator('main').innerText()
    for (const secret of Object.values(run.server.seed.keys)) expect(text).not.toContain(secret)

    // A status that is not one is answered next to its field; nothing changes.
    await page.getByLabel('Status', { exact: true }).fill('abc')
    await page.getByRole('button', { name: 'Filter', exact: true }).click()
    expect(await errorNextTo(page, 'Status')).toMatch(/from 100 to 599/)
    // Both modes, one key, status 429.
    const keyId = keys.TEST[0] as string
    await page.getByLabel('Mode', { exact: true }).selectOption('')
    await page.getByLabel('API key', { exact: true }).selectOption(keyId)
    await page.getByLabel('Status', { exact: true }).fill('429')
    await page.getByRole('button', { name: 'Filter', exact: true }).click()
    const limited = newestFirst(entries.filter((e) => e.keyId === keyId && e.status === 429))
    expect(limited.length).toBeGreaterThan(0)
    // The 40 rows go, then the filtered ones come, all in one answer.
    await rows.nth(limited.length).waitFor({ state: 'detached' })
    await visible(rows.nth(limited.length - 1))
    expect(await rows.locator('th code').allInnerTexts()).toEqual(limited.map((e) => e.requestId))
    expect(new Set(await rows.locator('td:nth-child(6)').allInnerTexts())).toEqual(
      new Set(['rate_limited']),
    )

    // Find by id: a malformed one next to the field; a LIVE one opens its page from Test mode.
    await page.getByLabel('Request id', { exact: true }).fill('req_nope')
    await page.getByRole('button', { name: 'Find request' }).click()
    expect(await errorNextTo(page, 'Request id')).toMatch(/req_ and 26/)
    const live = entries.find((e) => e.mode === 'LIVE' && e.code !== undefined) as RequestLogEntry
    await page.getByLabel('Request id', { exact: true }).fill(live.requestId)
    await page.getByRole('button', { name: 'Find request' }).click()
    await visible(page.getByRole('heading', { name: `POST ${live.status} ${live.code}` }))
    const facts = await page.locator('dl.facts').innerText()
    for (const shown of [live.requestId, live.keyId, live.route, live.code as string, 'Live']) {
      expect(facts).toContain(shown)
    }
    await ui.checkPage(page, 'logs-request')

    // A grant made through the API, with the request id the grant path stores on it: its page
    // links to the request.
    const made = await postGrant(
      run.server.baseUrl,
      run.server.seed.programs.TEST,
      run.server.seed.keys.TEST,
      {
        recipient: { email: 'logs@example.com' },
        reason: 'Request log',
        amount: 3,
      },
    )
    expect(made.status).toBe(201)
    const grantId = made.body.id as string
    const [making] = makeEntries(issuerId, keys, 2, Date.now()).filter((e) => e.mode === 'TEST')
    const request: RequestLogEntry = {
      ...(making as RequestLogEntry),
      method: 'POST',
      route: 'POST /programs/{programId}/grant-tokens',
      programId: run.server.seed.programs.TEST,
      grantId,
      status: 201,
    }
    await putRequestLog([request], target)
    await client.send(
      new UpdateCommand({
        TableName: run.server.tables.grants,
        Key: { grantId },
        UpdateExpression: 'SET requestId = :r',
        ExpressionAttributeValues: { ':r': request.requestId },
      }),
    )
    await page.goto(`/app/${issuerId}/test/grants/${grantId}`)
    await page.getByRole('link', { name: request.requestId }).click()
    await visible(page.getByRole('heading', { name: 'POST 201' }))
    await visible(page.locator('dl.facts').getByRole('link', { name: grantId }))

    // An id of no request: not found, with the way back.
    await page.goto(`/app/${issuerId}/test/logs/req_${'0'.repeat(26)}`)
    await visible(page.getByRole('heading', { name: 'Request not found' }))
    await visible(page.getByRole('link', { name: 'Back to the logs' }))
    expect(problems).toEqual([ui.NOT_FOUND])
  } finally {
    client.destroy()
  }
}, 240_000)
