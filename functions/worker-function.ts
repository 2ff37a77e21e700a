import { ENV } from './env-names'
import type { TableKey } from './stores/table-schema'

/**
 * The batch worker (send to many): a function with no route, which the stack creates beside the
 * routes' functions. Pure data, like functions/routes.ts.
 *
 * - Invoked asynchronously (`InvocationType: Event`) with `{ "batchId": "bat_..." }` only: by the
 *   route that commits a batch (CreateGrantBatch, which finds it through the variable `variable`),
 *   and by itself when a run nears its timeout with rows left.
 * - Its IAM: exactly `access` on the tables (as a route's), and `lambda:InvokeFunction` on itself.
 *   (A function whose environment or default policy names its own ARN makes a CloudFormation
 *   cycle: it invokes itself by the runtime's AWS_LAMBDA_FUNCTION_NAME, and the self-invoke
 *   statement goes in a policy of its own, attached to its role.)
 * - Lambda retries a failed asynchronous run twice; the worker is safe to run again at any point.
 */
export const GRANT_BATCH_WORKER = {
  id: 'GrantBatchWorker',
  entry: 'functions/handlers/grant-batch-worker.handler.ts',
  /** A 5,000-row batch takes one to two minutes on DynamoDB (one grant transaction per row). */
  timeoutSeconds: 300,
  memorySize: 512,
  access: {
    // A row's grant: the grant API's transaction (program update, grant put) and its reads (the
    // shards' in one BatchGetItem, for a row larger than a slice or a slice found dry).
    programs: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'],
    // The batch and its chunks (read, lease, results, counters) and the rows' grants.
    grants: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    // The `batch.finish` entry.
    audit: ['dynamodb:PutItem'],
  } satisfies Partial<Record<TableKey, readonly string[]>>,
  /** Routes that invoke it (`lambda:InvokeFunction` on it), with its name in this variable. */
  invokedBy: ['CreateGrantBatch'],
  variable: ENV.grantBatchWorkerFunction,
} as const
