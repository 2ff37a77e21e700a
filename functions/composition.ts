import type { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { type Config, loadConfig } from './config'
import type { QueueId } from './consumers'
import { type Clock, monotonicClock, systemClock } from './runtime/clock'
import type { QueueSender } from './runtime/queue-sender'
import { createDocumentClient, createDynamoDbClient } from './stores/dynamodb-client'
import type { UploadStore } from './stores/uploads.store'

/**
 * What every route is built from: the configuration, the process's DynamoDB client, and the
 * clocks. Built once per entry point (functions/handlers/*.handler.ts at module scope, so a warm
 * Lambda reuses its connections; `npm start`; the CLI; the bench; the test setup) and passed
 * down; nothing below reads the environment or builds a client at import. What only a few routes
 * need (the user pool, the mailer, the worker's invoker) those routes build from `config`, so the
 * grant path's bundle carries none of it.
 */
export type Runtime = {
  readonly config: Config
  readonly dynamodb: DynamoDBClient
  readonly documentClient: DynamoDBDocumentClient
  /** Wall clock: createdAt, key expiry, leases. */
  readonly clock: Clock
  /** Monotonic clock: how old the grant path's cached checks are. */
  readonly monotonic: Clock
  /**
   * The queues this entry point may send to (functions/consumers.ts): in Lambda, SQS at the URL the
   * stack sets (the entry module builds it); under `npm start` and in tests, the local pipeline's
   * queues (local/pipeline.ts). Absent: nothing to send to, and a route that needs one says so.
   */
  readonly queues?: Readonly<Partial<Record<QueueId, QueueSender>>>
  /**
   * Where send-to-many CSVs are uploaded: absent in Lambda (the routes that use it build the S3
   * store from UPLOAD_BUCKET on first use); under `npm start` and in tests, the local store behind
   * the local server's upload receiver (functions/stores/uploads.local.ts).
   */
  readonly uploads?: UploadStore
}

/** The sender of `id` in this runtime; an entry point that forgot it fails loudly at the first use. */
export const queueOf = (runtime: Runtime, id: QueueId): QueueSender => {
  const sender = runtime.queues?.[id]
  if (sender === undefined) {
    throw new Error(
      `No sender for queue ${id} in this runtime: Lambda's entry builds it from its URL variable, npm start and tests from the local pipeline (startLocalPipeline).`,
    )
  }
  return sender
}

/** The runtime of `config`: one DynamoDB client; the system clocks unless a test passes its own. */
export const buildRuntime = (
  config: Config,
  overrides: Partial<Omit<Runtime, 'config'>> = {},
): Runtime => {
  const dynamodb =
    overrides.dynamodb ??
    createDynamoDbClient({ endpoint: config.dynamodbEndpoint, region: config.awsRegion })
  return {
    config,
    dynamodb,
    documentClient: overrides.documentClient ?? createDocumentClient(dynamodb),
    clock: overrides.clock ?? systemClock,
    monotonic: overrides.monotonic ?? monotonicClock,
    ...(overrides.queues === undefined ? {} : { queues: overrides.queues }),
    ...(overrides.uploads === undefined ? {} : { uploads: overrides.uploads }),
  }
}

/**
 * A Lambda handler module's runtime: its function's environment, read once at cold start (a
 * missing variable stops the function at init). Only entry modules call it, with their process's environment.
 */
export const runtimeFrom = (env: Record<string, string | undefined>): Runtime =>
  buildRuntime(loadConfig(env))
