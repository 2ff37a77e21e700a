import type { Runtime } from '../composition'
import { makeProgramAccess } from '../core/get-program'
import { makeListGrants } from '../core/list-grants'
import type { ListGrantsRouteDeps } from '../http/routes/list-grants.route'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'
import { integratorRequestDeps } from './integrator-requests.deps'

/** The integrator's listing of a program's grants: the program's access check, then the index. */
export const listGrantsDeps = (runtime: Runtime): ListGrantsRouteDeps => {
  const { tables, grantListIndex } = runtime.config
  const store = new DynamoDbGrantReads(runtime.documentClient, tables, grantListIndex)
  return {
    listGrants: makeListGrants({
      access: makeProgramAccess({ store, clock: () => runtime.clock.now() }),
      store,
    }),
    requests: integratorRequestDeps(runtime),
  }
}
