import type { Runtime } from '../composition'
import { makeProgramValues } from '../core/program-values'
import type { ProgramValuesRouteDeps } from '../http/routes/manage/program-values.route'
import { REQUEST_CONFLICT_RETRY } from '../stores/admin-writes.dynamodb'
import { DynamoDbProgramValueStore } from '../stores/program-values.dynamodb'
import { manageDeps } from './manage.deps'

/**
 * The value routes' deps: the membership check and, for each request, the value use cases over a
 * store bound to the request's deadline, with few conflict retries (as the admin routes').
 */
export const programValuesDeps = (runtime: Runtime): ProgramValuesRouteDeps => ({
  ...manageDeps(runtime),
  valuesFor: (who, signal) =>
    makeProgramValues({
      store: new DynamoDbProgramValueStore(runtime.documentClient, runtime.config.tables, {
        conflictRetry: REQUEST_CONFLICT_RETRY,
        signal,
      }),
      clock: () => runtime.clock.now(),
      who,
    }),
})
