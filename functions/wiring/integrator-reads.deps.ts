import type { Runtime } from '../composition'
import { makeGetGrant } from '../core/get-grant'
import { makeProgramAccess } from '../core/get-program'
import { makeListGrants } from '../core/list-grants'
import type { GetGrantRouteDeps } from '../http/routes/get-grant.route'
import type { GetProgramRouteDeps } from '../http/routes/get-program.route'
import type { ListGrantsRouteDeps } from '../http/routes/list-grants.route'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'

// The integrator's reads by key (the grant, the program, its grants): each route's use case over
// the runtime's client and clock.
const clockOf = (runtime: Runtime) => () => runtime.clock.now()

export const getGrantDeps = (runtime: Runtime): GetGrantRouteDeps => ({
  getGrant: makeGetGrant({
    store: new DynamoDbGrantStore(runtime.documentClient, runtime.config.tables),
    clock: clockOf(runtime),
  }),
})

export const getProgramDeps = (runtime: Runtime): GetProgramRouteDeps => ({
  programAccess: makeProgramAccess({
    store: new DynamoDbGrantReads(runtime.documentClient, runtime.config.tables),
    clock: clockOf(runtime),
  }),
})

export const listGrantsDeps = (runtime: Runtime): ListGrantsRouteDeps => {
  const { tables, grantListIndex } = runtime.config
  const store = new DynamoDbGrantReads(runtime.documentClient, tables, grantListIndex)
  return {
    listGrants: makeListGrants({
      access: makeProgramAccess({ store, clock: clockOf(runtime) }),
      store,
    }),
  }
}
