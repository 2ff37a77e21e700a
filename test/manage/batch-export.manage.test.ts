import { parse } from 'csv-parse/sync'
import { csvLine } from '../../functions/domain/csv'
import { BATCH_RESULT_CSV_COLUMNS } from '../../functions/http/batch-view'
import { type Call, type Issuer, newIssuer, startApi } from '../support/api'
import { type Person, signUpPerson } from '../support/identity'
import { addMember, manageCall, sleep } from './grants-support'

/**
 * A batch's results as CSV (GetGrantBatch with `Accept: text/csv`), through the local server with
 * real access tokens and the worker from the local queue: pages that append into one file, read
 * by a CSV reader we did not write (csv-parse) as a `,` locale and a `;` locale would, every row's
 * outcome as the JSON shows it, no cell a spreadsheet would run as a formula; and the failed rows,
 * fixed, sent again as a new batch as they are (the `result_` columns are read and ignored).
 */

let api: Awaited<ReturnType<typeof startApi>>
let admin: Person
let issuer: Issuer
beforeAll(async () => {
  api = await startApi({ pipeline: true })
  admin = await signUpPerson()
  issuer = await newIssuer()
  await addMember(issuer.issuerId, admin, 'admin')
})
afterAll(async () => {
  await api.close()
})

const batchesPath = `/manage/issuers/{issuerId}/programs/{programId}/grant-batches`
const path = () =>
  batchesPath.replace('{issuerId}', issuer.issuerId).replace('{programId}', issuer.programs.TEST)
const send = (csv: string, dryRun: boolean) =>
  manageCall(api.baseUrl, admin, 'POST', path(), {
    body: { csv, reason: 'Export test', dryRun },
    headers: dryRun ? {} : { 'idempotency-key': `k-${Math.random()}` },
  })
const read = (batchId: string, query = '', accept?: string) =>
  manageCall(api.baseUrl, admin, 'GET', `${path()}/${batchId}${query}`, {
    headers: accept === undefined ? {} : { accept },
  })

/** Until the batch is final. */
const finished = async (batchId: string) => {
  const started = Date.now()
  for (;;) {
    await api.pipeline?.drain(60_000)
    const call = await read(batchId)
    if (['done', 'canceled'].includes(call.body.status as string)) return call
    if (Date.now() - started > 120_000) throw new Error(`batch ${batchId}: ${call.text}`)
    await sleep(100)
  }
}

/** Every CSV page from `first`, following `Link: <...>; rel="next"`; the pages and the file. */
const exportAll = async (batchId: string, query: string) => {
  const pages: Call[] = []
  let next: string | undefined = `${path()}/${batchId}${query}`
  while (next !== undefined) {
    const page = await manageCall(api.baseUrl, admin, 'GET', next, {
      headers: { accept: 'text/csv' },
    })
    expect(page.status).toBe(200)
    pages.push(page)
    next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1]
    expect(page.headers.get('x-next-cursor') ?? undefined).toBe(
      next === undefined ? undefined : new URL(next, api.baseUrl).searchParams.get('cursor'),
    )
  }
  return { pages, text: pages.map((p) => p.text).join('') }
}

// A formula trigger, even behind white space or format characters (a spreadsheet skips them).
const FORMULA_LIKE = /^[\p{White_Space}\p{Cf}]*[=+\-@\t\r]/u

describe("a batch's results as CSV", () => {
  it('pages into one file that csv-parse reads, row by row as the JSON says, no cell a formula in either locale; the failed rows, fixed, go again', async () => {
    const rows = [
      'email,amount,name,reason',
      'ann@example.com,1,Ann,',
      'bob@example.com,2,"=HYPERLINK(""http://evil.example"")",',
      'cy@example.com,abc,Cy,',
      'ann@example.com,1,Ann again,',
      'not-an-address,1,,',
      'dee@example.com,3,"Dee;@SUM(A1)","+1 for the team"',
    ]
    const committed = await send(`${rows.join('\r\n')}\r\n`, false)
    expect(committed.status).toBe(202)
    const batchId = committed.body.id as string
    const done = await finished(batchId)
    expect(done.body.counts).toMatchObject({ total: 6, granted: 3, failed: 3 })
    const json = (await read(batchId, '?limit=500')).body.rows as Record<string, unknown>[]

    // Two rows a page: three pages, the header on the first only.
    const all = await exportAll(batchId, '?limit=2')
    expect(all.pages).toHaveLength(3)
    expect(all.pages.map((p) => p.headers.get('content-type'))).toEqual([
      'text/csv; charset=utf-8; header=present',
      'text/csv; charset=utf-8; header=absent',
      'text/csv; charset=utf-8; header=absent',
    ])
    expect(all.pages[0]?.headers.get('content-disposition')).toBe(
      `attachment; filename="batch-${batchId}.csv"`,
    )
    expect(all.pages[0]?.headers.get('cache-control')).toBe('no-store')

    const comma: string[][] = parse(all.text, { delimiter: ',' })
    expect(comma[0]).toEqual(BATCH_RESULT_CSV_COLUMNS)
    const records = comma
      .slice(1)
      .map((cells) =>
        Object.fromEntries(BATCH_RESULT_CSV_COLUMNS.map((name, i) => [name, cells[i]])),
      )
    expect(records).toHaveLength(6)
    // Each record is its row as the JSON shows it, once the quote that keeps a text from
    // being read as a formula (at its start, after a `;`) is taken off.
    const unguard = (cell: string | undefined) => cell?.replace(/(^|[;\r\n])'(?=[=+\-@])/g, '$1')
    for (const [i, view] of json.entries()) {
      expect({
        ...records[i],
        name: unguard(records[i]?.name),
        reason: unguard(records[i]?.reason),
      }).toEqual({
        email: view.email,
        amount: String(view.amount),
        name: view.name ?? '',
        reason: view.reason ?? '',
        result_row: String(view.row),
        result_status: view.status,
        result_grant_id: (view.grantId as string | undefined) ?? '',
        result_code: (view.code as string | undefined) ?? '',
        result_message: (view.message as string | undefined) ?? '',
      })
    }
    expect(records[1]?.name).toBe('\'=HYPERLINK("http://evil.example")')
    expect([records[5]?.name, records[5]?.reason]).toEqual(["Dee;'@SUM(A1)", "'+1 for the team"])
    expect(records.map((r) => [r.email, r.result_status, r.result_code])).toEqual([
      ['ann@example.com', 'granted', ''],
      ['bob@example.com', 'granted', ''],
      ['cy@example.com', 'failed', 'validation_failed'],
      ['ann@example.com', 'failed', 'duplicate_row'],
      ['not-an-address', 'failed', 'validation_failed'],
      ['dee@example.com', 'granted', ''],
    ])
    // A `;` locale splits the cells differently; no cell of either reading runs as a formula.
    const semicolon: string[][] = parse(all.text, {
      delimiter: ';',
      relax_quotes: true,
      relax_column_count: true,
    })
    for (const cell of [...comma.flat(), ...semicolon.flat()]) {
      expect(cell).not.toMatch(FORMULA_LIKE)
    }

    // Only the failed rows: their own file name.
    const failed = await exportAll(batchId, '?status=failed')
    expect(failed.pages[0]?.headers.get('content-disposition')).toBe(
      `attachment; filename="batch-${batchId}-failed.csv"`,
    )
    const failedRecords: string[][] = parse(failed.text, { delimiter: ',' })
    expect(failedRecords.slice(1).map((cells) => cells[0])).toEqual([
      'cy@example.com',
      'ann@example.com',
      'not-an-address',
    ])

    // The failed file as it is: a batch reads it (its result_ columns ignored); the two bad rows
    // are refused again, the repeated address is no repeat in this file.
    const asIs = await send(failed.text, true)
    expect(asIs.status).toBe(200)
    expect(asIs.body.counts).toEqual({ total: 3, valid: 1, invalid: 2, duplicates: 0 })
    // Fixed (an amount, an address), written back with the result columns kept: all go.
    const fixed = failedRecords.map((cells, i) => {
      if (i === 0) return cells
      const [email = '', amount = '', ...rest] = cells
      return [
        email === 'not-an-address' ? 'eve@example.com' : email,
        amount === 'abc' ? '4' : amount,
        ...rest,
      ]
    })
    const again = await send(fixed.map((cells) => csvLine(cells)).join(''), false)
    expect(again.status).toBe(202)
    const resent = await finished(again.body.id as string)
    expect(resent.body.counts).toMatchObject({ total: 3, granted: 3, failed: 0 })
  })

  it('refuses what it cannot page (400) as the JSON does, in problem+json', async () => {
    const committed = await send('email,amount\r\nzed@example.com,1\r\n', false)
    const batchId = committed.body.id as string
    await finished(batchId)
    const refused = await read(batchId, '?status=lost&cursor=nope', 'text/csv')
    expect(refused.status).toBe(400)
    expect(refused.headers.get('content-type')).toContain('application/problem+json')
    expect(refused.body.errors).toEqual([
      { field: 'cursor', message: 'cursor must be the nextCursor of a previous page' },
      { field: 'status', message: 'status must be pending, granted, failed or canceled' },
    ])
  })
})
