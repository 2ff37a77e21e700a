import { config } from '../config'
import { makeGrantTokens } from '../grant-tokens/grant-tokens.use-case'
import { AccessCache } from '../shared/access-cache'
import { clock } from '../shared/clock'
import { documentClient, dynamodb } from '../shared/dynamodb'
import { DynamoDbGrantStore } from '../stores/grants.dynamodb'
import { DynamoDbBatchStore } from './batch.dynamodb'
import { makeBatchWorker } from './grant-batch-worker'
import {
  inProcessInvoker,
  invokeSigning,
  lambdaInvoker,
  type WorkerHandler,
  type WorkerInvoker,
} from './worker-invoker'

const grants = new DynamoDbGrantStore(documentClient, config.tables)
let self: WorkerInvoker | undefined

/**
 * The batch worker (functions/batches/worker-function.ts): in Lambda it starts its next run with
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
