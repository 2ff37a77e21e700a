import { readRequestLogQuery } from '../../../domain/request-log-query'
import type { RequestLogStore } from '../../../stores/request-log.store'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { manageJson } from '../../manage-http'
import { toRequestView } from '../../request-log-view'

/** What the request log's routes read (wiring/request-log.deps.ts). */
export type RequestLogRouteDeps = ManageDeps & {
  readonly requestLog: Pick<RequestLogStore, 'listEntries' | 'getEntry'>
}

/**
 * `GET /manage/issuers/{issuerId}/requests?mode=&keyId=&status=&code=&since=&until=&limit=&cursor=`
 * (viewer): the integrator API's requests of the issuer's keys, newest first (`since`/`until`
 * inclusive). A filtered page may hold fewer than `limit` entries, even none, and still have a
 * `nextCursor`: each page reads a bounded number of entries. Bad filters: 400, nothing read.
 */
export const makeListRequestsHandler = ({ requestLog, ...deps }: RequestLogRouteDeps) =>
  manageHandler('ListRequests', deps, async ({ event, deadline, membership }) => {
    const issuerId = membership?.issuerId ?? ''
    const query = readRequestLogQuery(event.queryStringParameters, issuerId)
    const page = await requestLog.listEntries({ issuerId, ...query }, { signal: deadline.signal })
    return manageJson(200, {
      object: 'list',
      data: page.entries.map(toRequestView),
      nextCursor: page.nextCursor ?? null,
    })
  })
