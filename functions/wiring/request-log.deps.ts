import type { Runtime } from '../composition'
import type { RequestLogRouteDeps } from '../http/routes/manage/requests-list.route'
import { DynamoDbRequestLogReads } from '../stores/request-log-reads.dynamodb'
import { manageDeps } from './manage.deps'

/** ListRequests, GetRequest: the request log's reads. */
export const requestLogDeps = (runtime: Runtime): RequestLogRouteDeps => ({
  ...manageDeps(runtime),
  requestLog: new DynamoDbRequestLogReads(runtime.documentClient, runtime.config.tables),
})
