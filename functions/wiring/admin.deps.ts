import type { Runtime } from '../composition'
import { makeAdmin } from '../core/admin'
import type { AdminRouteDeps } from '../http/manage-admin'
import { DynamoDbAdminStore, REQUEST_CONFLICT_RETRY } from '../stores/admin.dynamodb'
import { manageDeps } from './manage.deps'

/**
 * The program, key and audit routes' deps: the membership check and, for each request, the admin
 * use cases (core/admin.ts) over one store with few conflict retries, so that the request's
 * deadline is never reached by them, and every call abandoned when the deadline passes.
 */
export const adminDeps = (runtime: Runtime): AdminRouteDeps => {
  const store = new DynamoDbAdminStore(runtime.documentClient, runtime.config.tables, {
    conflictRetry: REQUEST_CONFLICT_RETRY,
  })
  return {
    ...manageDeps(runtime),
    adminFor: (who, signal) => makeAdmin(store.withSignal(signal), () => runtime.clock.now(), who),
  }
}
