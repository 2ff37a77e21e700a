import type { RequestLogEntry } from '../domain/request-log'
import type { RequestLogFilters } from '../domain/request-log-query'

export type RequestLogCallOptions = { signal?: AbortSignal }

/** What `GET /manage/issuers/{issuerId}/requests` filters by (domain/request-log-query.ts). */
export type RequestLogQuery = { issuerId: string } & RequestLogFilters & {
    limit: number
    cursor?: string
  }

export type RequestLogPage = { entries: RequestLogEntry[]; nextCursor?: string }

/** The request log's table (`requests`): written by the RequestLog writer, read by the console's routes. */
export interface RequestLogStore {
  /** Puts entries (idempotent: an entry's key is its request id); 'unavailable' when DynamoDB is away. */
  putEntries(
    entries: readonly RequestLogEntry[],
    options?: RequestLogCallOptions,
  ): Promise<'done' | 'unavailable'>
  /** Newest first, filtered; a page may hold fewer than `limit` entries and still have a next one. */
  listEntries(query: RequestLogQuery, options?: RequestLogCallOptions): Promise<RequestLogPage>
  /** One request of an issuer by its id (either mode); undefined when absent or not the issuer's. */
  getEntry(
    issuerId: string,
    requestId: string,
    options?: RequestLogCallOptions,
  ): Promise<RequestLogEntry | undefined>
}
