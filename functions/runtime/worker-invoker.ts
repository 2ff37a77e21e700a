import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { SignatureV4 } from '@smithy/signature-v4'
import type {
  AwsCredentialIdentityProvider,
  ChecksumConstructor,
  HashConstructor,
} from '@smithy/types'
import type { Context } from 'aws-lambda'
import { ENV } from '../env-names'
import { GRANT_BATCH_WORKER } from '../worker-function'
import { logger } from './logger'

/** What the batch worker is invoked with: the batch's id, nothing else (an async event: <= 1 MB). */
export type BatchWorkerEvent = { batchId: string }

/** Starts the worker on a batch and returns at once (an asynchronous invocation). */
export type WorkerInvoker = (
  event: BatchWorkerEvent,
  options?: { signal?: AbortSignal },
) => Promise<void>

/** The worker's handler as Lambda calls it. */
export type WorkerHandler = (
  event: BatchWorkerEvent,
  context: Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId' | 'functionName'>,
) => Promise<unknown>

/**
 * `lambda:InvokeFunction` with `X-Amz-Invocation-Type: Event` (Lambda queues the event, answers
 * 202, and retries a failed run twice), signed with SigV4 from the credentials and region the
 * function's DynamoDB client already resolved. A plain HTTPS call rather than the Lambda SDK
 * client: one request, and no second AWS client in the bundle.
 */
export const lambdaInvoker = (options: {
  functionName: string
  region: () => Promise<string>
  credentials: AwsCredentialIdentityProvider
  sha256: ChecksumConstructor | HashConstructor
  /** Tests only: where the Lambda API is. */
  endpoint?: string
}): WorkerInvoker => {
  let signer: Promise<{ signer: SignatureV4; base: URL }> | undefined
  const setup = async () => {
    const region = await options.region()
    return {
      signer: new SignatureV4({
        service: 'lambda',
        region,
        credentials: options.credentials,
        sha256: options.sha256,
      }),
      base: new URL(options.endpoint ?? `https://lambda.${region}.amazonaws.com`),
    }
  }
  return async (event, { signal } = {}) => {
    signer ??= setup()
    const { signer: sigv4, base } = await signer
    const body = JSON.stringify(event)
    const path = `/2015-03-31/functions/${encodeURIComponent(options.functionName)}/invocations`
    const signed = await sigv4.sign({
      method: 'POST',
      protocol: base.protocol,
      hostname: base.hostname,
      ...(base.port === '' ? {} : { port: Number(base.port) }),
      path,
      query: {},
      headers: {
        host: base.host,
        'content-type': 'application/json',
        'x-amz-invocation-type': 'Event',
      },
      body,
    })
    const status = await post(base, path, signed.headers, body, signal)
    if (status !== 202) {
      throw Object.assign(
        new Error(`Lambda Invoke of ${options.functionName} answered ${status}`),
        {
          name: status === 429 || status >= 500 ? 'ServiceUnavailable' : 'LambdaInvokeFailed',
          $metadata: { httpStatusCode: status },
        },
      )
    }
  }
}

const post = (
  base: URL,
  path: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal | undefined,
) =>
  new Promise<number>((resolve, reject) => {
    const send = base.protocol === 'http:' ? httpRequest : httpsRequest
    const req = send(
      {
        method: 'POST',
        hostname: base.hostname,
        port: base.port === '' ? undefined : Number(base.port),
        path,
        headers,
        timeout: 5_000,
        ...(signal ? { signal } : {}),
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', reject)
      },
    )
    req.on('timeout', () =>
      req.destroy(Object.assign(new Error('Lambda Invoke timed out'), { name: 'TimeoutError' })),
    )
    req.on('error', reject)
    req.end(body)
  })

/** What a Lambda Invoke is signed with: the credentials and region the DynamoDB client resolved. */
export const invokeSigning = (client: DynamoDBClient) => ({
  region: client.config.region,
  credentials: client.config.credentials,
  sha256: client.config.sha256,
})

/**
 * How the worker runs in-process (npm start, tests): as Lambda runs an asynchronous event. The
 * run's context counts down from `timeoutMs` (the worker function's timeout in AWS); a run that
 * fails is tried again after each of `retryDelaysMs` (Lambda: twice, after about 1 and 2 minutes).
 * Tests shorten both.
 */
export const LOCAL_WORKER = {
  timeoutMs: GRANT_BATCH_WORKER.timeoutSeconds * 1000,
  retryDelaysMs: [1_000, 2_000] as number[],
}

const localRuns = new Set<Promise<void>>()

/** Resolves once no in-process worker run is going on or waiting for a retry (tests). */
export const localWorkersIdle = async () => {
  while (localRuns.size > 0) await Promise.allSettled([...localRuns])
}

let localRunCount = 0

/**
 * The same worker, run in this process after the invoking request has answered: what `npm start`
 * and the tests use for an asynchronous Lambda invocation.
 */
export const inProcessInvoker =
  (load: () => Promise<WorkerHandler>): WorkerInvoker =>
  async (event) => {
    const handler = await load()
    const run = (async () => {
      // After the invoking request answered, as an asynchronous invocation.
      await new Promise((resolve) => setImmediate(resolve))
      for (let attempt = 0; ; attempt++) {
        const started = Date.now()
        const requestId = `local-worker-${++localRunCount}`
        try {
          await handler(event, {
            awsRequestId: requestId,
            functionName: GRANT_BATCH_WORKER.id,
            getRemainingTimeInMillis: () =>
              Math.max(0, started + LOCAL_WORKER.timeoutMs - Date.now()),
          })
          return
        } catch (error) {
          const delay = LOCAL_WORKER.retryDelaysMs[attempt]
          logger.warn('batch worker run failed', {
            batchId: event.batchId,
            attempt: attempt + 1,
            retryInMs: delay ?? null,
            error: error as Error,
          })
          if (delay === undefined) return
          await new Promise((resolve) => setTimeout(resolve, delay))
        }
      }
    })()
    localRuns.add(run)
    void run.finally(() => localRuns.delete(run))
  }

/**
 * The invoker a function uses: AWS Lambda's asynchronous Invoke of `functionName`, or, outside
 * Lambda with no function named (npm start, tests), the same worker in-process. Inside Lambda a
 * missing name is a deployment error, raised at init: running the worker inside the invoking
 * function would stop when it answers.
 */
export const workerInvoker = (options: {
  functionName: string | undefined
  /** Whether this code runs in Lambda (the runtime names the function: AWS_LAMBDA_FUNCTION_NAME). */
  inLambda: boolean
  aws: Omit<Parameters<typeof lambdaInvoker>[0], 'functionName'>
  loadLocal: () => Promise<WorkerHandler>
}): WorkerInvoker => {
  if (options.functionName)
    return lambdaInvoker({ ...options.aws, functionName: options.functionName })
  if (options.inLambda) {
    throw new Error(
      `Missing environment variable ${ENV.grantBatchWorkerFunction}: the stack sets it to the batch worker's function name.`,
    )
  }
  return inProcessInvoker(options.loadLocal)
}
