import type { Runtime } from '../composition'
import {
  inProcessInvoker,
  invokeSigning,
  lambdaInvoker,
  type WorkerHandler,
  type WorkerInvoker,
} from '../runtime/worker-invoker'
import { DynamoDbBatchStore } from '../stores/batches.dynamodb'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { AccessCache } from './access-cache'
import { makeBatchWorker } from './grant-batch-worker'
import { makeGrantTokens } from './grant-tokens'

/**
 * The batch worker (functions/worker-function.ts) over a runtime: its Lambda entry
 * (grant-batch-worker.handler.ts) builds it once per process, and so do npm start and the tests,
 * which run it in-process. In Lambda it starts its next run with an asynchronous Invoke of itself
 * (by the name the runtime gives it); elsewhere, in-process, the same way. Reads nothing at import.
 */
export const makeBatchWorkerHandler = (runtime: Runtime): WorkerHandler => {
  const { documentClient, config } = runtime
  const grants = new DynamoDbGrantStore(documentClient, config.tables)
  let self: WorkerInvoker | undefined
  const handler: WorkerHandler = makeBatchWorker({
    batches: new DynamoDbBatchStore(documentClient, config.tables),
    grantTokens: makeGrantTokens({
      store: grants,
      access: new AccessCache(grants, { now: () => runtime.monotonic.now() }),
      clock: () => runtime.clock.now(),
    }),
    invokeSelf: (context) => {
      self ??=
        config.lambdaFunctionName !== undefined
          ? lambdaInvoker({
              functionName: context.functionName,
              ...invokeSigning(runtime.dynamodb),
            })
          : inProcessInvoker(async () => handler)
      return self
    },
    clock: () => runtime.clock.now(),
  })
  return handler
}
