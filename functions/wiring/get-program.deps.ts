import type { Runtime } from '../composition'
import { makeProgramAccess } from '../core/get-program'
import type { GetProgramRouteDeps } from '../http/routes/get-program.route'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'
import { integratorRequestDeps } from './integrator-requests.deps'

/** The integrator's GET of a program: its access check over the reads, on the runtime's clock. */
export const getProgramDeps = (runtime: Runtime): GetProgramRouteDeps => ({
  programAccess: makeProgramAccess({
    store: new DynamoDbGrantReads(runtime.documentClient, runtime.config.tables),
    clock: () => runtime.clock.now(),
  }),
  requests: integratorRequestDeps(runtime),
})
