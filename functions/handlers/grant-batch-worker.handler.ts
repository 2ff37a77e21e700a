import { config } from '../config'
import { AccessCache } from '../core/access-cache'
import { makeBatchWorker } from '../core/grant-batch-worker'
import { makeGrantTokens } from '../core/grant-tokens'
import { clock } from '../runtime/clock'
import {
  inProcessInvoker,
  invokeSigning,
  lambdaInvoker,
  type WorkerHandler,
  type WorkerInvoker,
} from '../runtime/worker-invoker'
import { DynamoDbBatchStore } from '../stores/batches.dynamodb'
import { documentClient, dynamodb } from '../stores/dynamodb-client'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'

const grants = new DynamoDbGrantStore(documentClient, config.tables)
let self: WorkerInvoker | undefined

/**
 * The batch worker (functions/runtime/worker-function.ts): in Lambda it starts its next run with
 * an asynchronous Invoke of itself; under npm start and in tests, in-process, the same way.
 */
export const handler: WorkerHandler = makeBatchWorker({
  batches: new DynamoDbBatchStore(documentClient, config.tables),
  grantTokens: makeGrantTokens({
    store: grants,
    access: new AccessCache(grants),
    clock: () => clock.now(),
  }),
  invokeSelf: (context) => {
    self ??=
      process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined
        ? lambdaInvoker({ functionName: context.functionName, ...invokeSigning(dynamodb) })
        : inProcessInvoker(async () => handler)
    return self
  },
  clock: () => clock.now(),
})
