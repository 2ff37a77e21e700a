import { NO_STORE } from './program-of-issuer'

/**
 * Answers in CSV for the management routes that export (a program's grants, a batch's rows): the
 * same content negotiation and the same way of paging, so a client that follows one follows both.
 */

/** A Lambda answer through API Gateway is at most 6 MB: a CSV page stops early past 5 MB of text. */
export const CSV_MAX_BYTES = 5 * 1024 * 1024

/**
 * Whether the caller asked for CSV: `text/csv` in Accept with a q above 0 and at least the q of
 * any JSON type it lists. Anything else (no Accept, `*\/*`, JSON) is JSON.
 */
export const wantsCsv = (accept: string | undefined) => {
  if (accept === undefined) return false
  let csv = 0
  let jsonQ = 0
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const qParam = params.find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (!Number.isFinite(q)) continue
    if (type === 'text/csv') csv = Math.max(csv, q)
    if (type === 'application/json' || type === 'application/*') jsonQ = Math.max(jsonQ, q)
  }
  return csv > 0 && csv >= jsonQ
}

/**
 * The headers of one CSV page: the header row on the first page only (`header=present`), so pages
 * appended in order make one file; the next page's cursor in `x-next-cursor` and in
 * `Link: <path?query>; rel="next"` (`query` repeats the page's own parameters with the cursor).
 */
export const csvPageHeaders = (input: {
  first: boolean
  filename: string
  path: string
  nextCursor: string | undefined
  query: Record<string, string | undefined>
}) => {
  const headers: Record<string, string> = {
    ...NO_STORE,
    'content-type': `text/csv; charset=utf-8; header=${input.first ? 'present' : 'absent'}`,
    'content-disposition': `attachment; filename="${input.filename}"`,
  }
  if (input.nextCursor !== undefined) {
    const params = new URLSearchParams({ cursor: input.nextCursor })
    for (const [name, value] of Object.entries(input.query)) {
      if (value !== undefined) params.set(name, value)
    }
    headers['x-next-cursor'] = input.nextCursor
    headers.link = `<${input.path}?${params}>; rel="next"`
  }
  return headers
}
