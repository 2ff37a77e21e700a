import type { toRequestView } from '../../functions/http/request-log-view'
import { type Mode, request } from './api'

/**
 * The management API's request log (issue 33): a page of an issuer's requests, newest first,
 * filtered, and one request by its id. Kept apart from api.ts so only the Logs pages carry it.
 */

export type RequestEntry = ReturnType<typeof toRequestView>

export type RequestFilters = {
  mode?: Mode | ''
  keyId?: string
  status?: string
  code?: string
  /** ISO 8601 instants. */
  since?: string
  until?: string
}

export type RequestPage = { object: 'list'; data: RequestEntry[]; nextCursor: string | null }

/** A request id as the service makes them (functions/domain/request-id.ts, which needs node:crypto). */
export const REQUEST_ID = /^req_[0-9a-hjkmnp-tv-z]{26}$/

const params = (values: Record<string, string | number | undefined>) => {
  const set = Object.entries(values).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  )
  return set.length === 0 ? '' : `?${new URLSearchParams(set.map(([k, v]) => [k, String(v)]))}`
}

export const requestLogApi = (issuerId: string) => {
  const base = `/manage/issuers/${encodeURIComponent(issuerId)}/requests`
  return {
    list: async (filters: RequestFilters, page: { limit: number; cursor?: string | undefined }) =>
      (await (
        await request('GET', `${base}${params({ ...filters, ...page })}`)
      ).json()) as RequestPage,
    get: async (requestId: string) =>
      (await (
        await request('GET', `${base}/${encodeURIComponent(requestId)}`)
      ).json()) as RequestEntry,
  }
}
