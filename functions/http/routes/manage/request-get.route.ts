import { RequestNotFound } from '../../../domain/errors'
import { manageHandler } from '../../manage-handler'
import { manageJson } from '../../manage-http'
import { toRequestView } from '../../request-log-view'
import type { RequestLogRouteDeps } from './requests-list.route'

/**
 * `GET /manage/issuers/{issuerId}/requests/{requestId}` (viewer): one request of the log, in
 * either mode. A malformed id, one not in the log (never made, or older than it keeps) and
 * another issuer's all answer `404 request_not_found`.
 */
export const makeGetRequestHandler = ({ requestLog, ...deps }: RequestLogRouteDeps) =>
  manageHandler('GetRequest', deps, async ({ event, deadline, membership }) => {
    const requestId = event.pathParameters?.requestId ?? ''
    const entry = await requestLog.getEntry(membership?.issuerId ?? '', requestId, {
      signal: deadline.signal,
    })
    if (entry === undefined || entry.issuerId !== membership?.issuerId) {
      throw new RequestNotFound(requestId)
    }
    return manageJson(200, toRequestView(entry))
  })
