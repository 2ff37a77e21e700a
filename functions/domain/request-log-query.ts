import { MODES, type Mode } from './api-key'
import { idPattern } from './ids'
import { decodeCursor, encodeCursor } from './page-cursor'
import { oneOf, type QueryParameters, readPageQuery } from './page-query'
import { REQUEST_ID_PATTERN } from './request-id'
import { REQUEST_LOG_SLOTS, requestLogSlotPartition } from './request-log'

/**
 * `GET /manage/issuers/{issuerId}/requests`: its filters, read before any read, and its cursor
 * (one position per partition read: REQUEST_LOG_SLOTS per mode, both modes when none is asked).
 */

/** A page of the request log: 50 entries by default, at most 100. */
export const REQUEST_LOG_PAGE = { default: 50, max: 100 } as const

/** The filters as the store takes them (times as ISO 8601 instants). */
export type RequestLogFilters = {
  mode?: Mode
  keyId?: string
  status?: number
  code?: string
  since?: string
  until?: string
}

/** The partitions a listing reads, in the cursor's order: each mode's slots. */
export const requestLogStreams = (issuerId: string, mode: Mode | undefined) =>
  (mode === undefined ? MODES : [mode]).flatMap((m) =>
    Array.from({ length: REQUEST_LOG_SLOTS }, (_, slot) =>
      requestLogSlotPartition(issuerId, m, slot),
    ),
  )

/** A partition's position: not read yet (`-`), read to its end (`.`), or after this request id. */
export type RequestLogPosition = 'start' | 'done' | string

const POSITION = new RegExp(`^(-|\\.|${REQUEST_ID_PATTERN.source.slice(1, -1)})$`)

export const encodeRequestLogCursor = (positions: readonly RequestLogPosition[]) =>
  encodeCursor(...positions.map((p) => (p === 'start' ? '-' : p === 'done' ? '.' : p)))

/** The positions of a cursor for a listing of `streams` partitions; undefined for any other text. */
export const decodeRequestLogCursor = (
  cursor: string,
  streams: number,
): RequestLogPosition[] | undefined =>
  decodeCursor(
    cursor,
    Array.from({ length: streams }, () => POSITION),
    Math.ceil((31 * streams) / 3) * 4,
  )?.map((part) => (part === '-' ? 'start' : part === '.' ? 'done' : part))

const KEY_ID = idPattern('apiKey')
const CODE = /^[a-z][a-z0-9_]{0,63}$/
/** An instant with its offset, as the other time filters take it (e.g. 2026-11-29T10:42:00Z). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/
const FILTERS = ['mode', 'keyId', 'status', 'code', 'since', 'until'] as const

/**
 * The listing's query string: every bad filter is one field error of one 400 (validation_failed),
 * and nothing is read. A cursor is checked against the partitions of the mode asked for.
 */
export const readRequestLogQuery = (query: QueryParameters | undefined, issuerId: string) => {
  const rawMode = query?.mode === '' ? undefined : query?.mode
  const modeOk = rawMode === undefined || (MODES as readonly string[]).includes(rawMode)
  const streams = requestLogStreams(issuerId, modeOk ? (rawMode as Mode | undefined) : undefined)
  const read = readPageQuery(query, {
    page: REQUEST_LOG_PAGE,
    decode: (text) => decodeRequestLogCursor(text, streams.length) && text,
    filters: FILTERS,
  })
  const filters: RequestLogFilters = {}
  const mode = oneOf(read, 'mode', MODES, 'mode must be TEST or LIVE')
  if (mode !== undefined) filters.mode = mode
  const keyId = read.value('keyId')
  if (keyId !== undefined) {
    if (KEY_ID.test(keyId)) filters.keyId = keyId
    else read.refuse('keyId', 'keyId must be an API key id (key_ and 26 letters or digits)')
  }
  const status = read.value('status')
  if (status !== undefined) {
    if (/^[1-5]\d\d$/.test(status)) filters.status = Number(status)
    else read.refuse('status', 'status must be an HTTP status from 100 to 599')
  }
  const code = read.value('code')
  if (code !== undefined) {
    if (CODE.test(code)) filters.code = code
    else read.refuse('code', 'code must be a problem code such as pool_exhausted')
  }
  const times: Partial<Record<'since' | 'until', number>> = {}
  for (const name of ['since', 'until'] as const) {
    const raw = read.value(name)
    if (raw === undefined) continue
    const ms = INSTANT.test(raw) ? Date.parse(raw) : Number.NaN
    if (Number.isNaN(ms)) {
      read.refuse(
        name,
        `${name} must be a time, ISO 8601 with its offset (such as 2026-11-29T10:42:00Z)`,
      )
    } else {
      times[name] = ms
      filters[name] = new Date(ms).toISOString()
    }
  }
  if (times.since !== undefined && times.until !== undefined && times.until < times.since) {
    read.refuse('until', 'until must not be before since')
  }
  const { limit, cursor } = read.done()
  return { ...filters, limit, ...(cursor === undefined ? {} : { cursor }) }
}
