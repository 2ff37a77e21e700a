import { INDEX, type TableKey } from './table-schema'

/**
 * What happens after a request has stored its change (issue 19): the grants table's stream, the
 * queues it feeds, their consumers, the SES events and the sweep. One list, like
 * functions/routes.ts: the CDK stack builds each function, event source, queue and its IAM from
 * it, `npm start` and the tests run the same handlers on local equivalents (local/pipeline.ts),
 * and test/unit/consumers.test.ts checks its rules (visibility timeout, entries on disk). Pure
 * data: importing it loads no handler code.
 *
 *   grants table stream (NEW_AND_OLD_IMAGES): two readers, a shard's limit without throttling
 *   (a third consumer hangs off a queue one of them feeds, as webhooks do)
 *     -> GrantStream (mail, timers, webhooks: what a recipient or an integrator waits for)
 *          -> queue OfferMail -> OfferMailer (LIVE: SES, paced; TEST: the inbox table)
 *          -> queue Webhooks (one `event` message per webhook event, core/webhook-events.ts)
 *          -> timers table (an offer's reminder and expiry)
 *     -> GrantFigures (the programs' figures: figures table; may lag on its own, delays no mail)
 *   SES configuration set -> SNS topic MailEventsTopic -> MailEvents (bounce, complaint)
 *   EventBridge rate(1 minute) -> OfferSweep (timers due -> expire / remind)
 */

/** DynamoDB actions per table, and per index of a table: what the stack grants, nothing more. */
export type TableAccess = Partial<Record<TableKey, readonly string[]>>
export type IndexAccess = Partial<Record<TableKey, Readonly<Record<string, readonly string[]>>>>

export type QueueSpec = {
  /** Construct id of the queue, and its name in the local pipeline. */
  id: string
  /**
   * How long a received message stays invisible before it is delivered again. AWS's rule for a
   * queue that triggers a function: at least six times the function's timeout (the poller's
   * retries of throttled invocations fit inside it). Checked by test/unit/consumers.test.ts.
   */
  visibilityTimeoutSeconds: number
  /** How long an unconsumed message is kept. */
  retentionSeconds: number
  /** After this many receives without a delete, the message moves to `deadLetter`. */
  maxReceiveCount: number
  /** The dead-letter queue: kept 14 days (SQS's longest) so an operator can read and redrive it. */
  deadLetter: { id: string; retentionSeconds: number }
  /** The variable that tells a sender the queue's URL (the stack sets it on each sender). */
  urlVariable: string
}

export type StreamTrigger = {
  kind: 'stream'
  table: TableKey
  /** The table's StreamSpecification (the stack's `stream`, local/tables.ts's StreamViewType). */
  viewType: 'NEW_AND_OLD_IMAGES'
  batchSize: number
  maxBatchingWindowSeconds: number
  /** Concurrent batches per shard (Lambda's ParallelizationFactor, 1 to 10); order kept per item. */
  parallelizationFactor: number
  /** TRIM_HORIZON: nothing written before the mapping exists is skipped on a new stage. */
  startingPosition: 'TRIM_HORIZON' | 'LATEST'
  /** Failed batches are retried (halved each time) this often, then go to `onFailure`. */
  retryAttempts: number
  bisectBatchOnError: boolean
  /** The handler answers `{ batchItemFailures }` with the first record it could not handle. */
  reportBatchItemFailures: boolean
  /** SQS queue that receives the metadata (shard, sequence numbers) of a batch given up on. */
  onFailure: string
  /**
   * Lambda event filters (a record passing any one invokes the reader): grant items (`gr_...`), and
   * a batch item (itemType `grantBatch`) whose new image is final (`done`, `canceled`: its
   * batch.completed), and a value change's outbox item when put (itemType `programValue`:
   * program.value_changed); link tokens, rate limits, batch chunks and a running batch's counter updates
   * (`offer-token#`, `limit#`, `batch#...`) in the same table never do. The reader checks keys and
   * images again (core/grant-stream.ts, core/webhook-events.ts), locally where no filter runs.
   */
  filters: readonly Record<string, unknown>[]
}

export type QueueTrigger = {
  kind: 'queue'
  queue: string
  batchSize: number
  maxBatchingWindowSeconds: number
  /** At most this many concurrent invocations from this queue (SQS event source maxConcurrency). */
  maxConcurrency?: number
  /** Always: the handler returns `{ batchItemFailures }`, only those messages come back. */
  reportBatchItemFailures: true
}

export type TopicTrigger = {
  kind: 'topic'
  /** Construct id of the SNS topic (the SES configuration set's event destination). */
  topic: string
  /** Lambda retries a failed asynchronous invocation this often, then sends it to `deadLetter`. */
  retryAttempts: number
  deadLetter: string
}

export type ScheduleTrigger = {
  kind: 'schedule'
  /** EventBridge schedule expression. Locally the same handler runs on a timer of this period. */
  expression: string
  periodSeconds: number
}

/**
 * A CloudWatch Logs subscription on the log group of `source` (the grant API's routes' functions)
 * for the lines matching `filterPattern`. CloudWatch Logs invokes asynchronously: Lambda retries a
 * failure `retryAttempts` times, then records it in `deadLetter`.
 */
export type LogsTrigger = {
  kind: 'logs'
  source: 'grantApiRoutes'
  filterPattern: string
  retryAttempts: number
  deadLetter: string
}

export type ConsumerSpec = {
  /** Construct id of the function, and its name in the local pipeline's consumer map. */
  id: string
  /** Handler module, relative to the project root. */
  entry: string
  trigger: StreamTrigger | QueueTrigger | TopicTrigger | ScheduleTrigger | LogsTrigger
  timeoutSeconds: number
  memorySize: number
  /** Exactly the DynamoDB actions it needs, per table (as a route's `access`). */
  access: TableAccess
  indexes?: IndexAccess
  /** Queues it sends to (sqs:SendMessage, which also authorises SendMessageBatch; their URLs). */
  sends?: readonly string[]
  /**
   * It sends e-mail through SES (the stack's mail identity and configuration set), as a route's
   * `mail`. `'paced'`: it paces its sends by the account's sending rate, which it reads with SESv2
   * GetAccount (the offer mailer); `true`: a few notices, unpaced, no GetAccount.
   */
  mail?: true | 'paced'
  /**
   * What it does with the webhook secrets' KMS key (functions/runtime/secret-box.ts): `decrypt`
   * (the sender signs). The stack sets WEBHOOK_KMS_KEY_ID and grants exactly that. Absent: none.
   */
  kms?: 'encrypt' | 'decrypt'
}

const DAY = 24 * 60 * 60

export const OFFER_MAIL_QUEUE = {
  id: 'OfferMail',
  // 6 x OfferMailer's 60 s.
  visibilityTimeoutSeconds: 360,
  retentionSeconds: 4 * DAY,
  // A message that failed 5 times (SES refusing, a bug) waits in the dead letters instead of
  // blocking its batch forever; a throttled send is not a failure (the consumer paces itself).
  maxReceiveCount: 5,
  deadLetter: { id: 'OfferMailDeadLetters', retentionSeconds: 14 * DAY },
  urlVariable: 'OFFER_MAIL_QUEUE_URL',
} as const satisfies QueueSpec

/** Where the stream's failed batches are recorded (Lambda's on-failure destination): no consumer. */
export const GRANT_STREAM_FAILURES = 'GrantStreamFailures'
/** GrantFigures' failed batches (its own on-failure destination): no consumer. */
export const GRANT_FIGURES_FAILURES = 'GrantFiguresFailures'
/** Where SES events whose handler failed three times go: no consumer. */
export const MAIL_EVENTS_DEAD_LETTERS = 'MailEventsDeadLetters'
/** Request log deliveries the writer failed three times: no consumer. */
export const REQUEST_LOG_DEAD_LETTERS = 'RequestLogDeadLetters'

/**
 * The request log's lines (runtime/request-log-sink.ts), and not the plain `request` line every
 * route logs (http/middleware.ts), which must not wake the writer. CloudWatch Logs' JSON syntax.
 */
export const REQUEST_LOG_FILTER_PATTERN =
  '{ ($.message = "request") && ($.requestLog.requestId = "req_*") }'

/**
 * Send to many (issue 20): the commit (CreateGrantBatch) puts one message per chunk of rows here
 * (domain/batch.ts BatchRowsMessage); GrantBatchWorker grants the chunk's rows. Rows are granted
 * with their own Idempotency-Key and a chunk's results are committed only from what was read, so
 * a message delivered twice, redelivered after a crash or sent again by a retried commit changes
 * nothing.
 */
export const GRANT_BATCH_ROWS_QUEUE = {
  id: 'GrantBatchRows',
  // 6 x GrantBatchWorker's 60 s.
  visibilityTimeoutSeconds: 360,
  // Days longer than any batch waits (the oldest-message alarm fires after minutes), and shorter
  // than the dead letters' 14: a message keeps its first enqueue time when it moves there.
  retentionSeconds: 4 * DAY,
  // Each receive counts: a chunk is retried 8 times (throttling, an outage) before its message goes
  // to the dead letters, and the batch shows it (BatchRecord.deadLettered).
  maxReceiveCount: 8,
  deadLetter: { id: 'GrantBatchRowsDeadLetters', retentionSeconds: 14 * DAY },
  urlVariable: 'GRANT_BATCH_ROWS_QUEUE_URL',
} as const satisfies QueueSpec

/**
 * Webhooks (issue 21; functions/domain/webhooks.ts WebhookQueueMessage, docs/webhooks.md): one
 * queue, one consumer (WebhookSender) for three kinds of message. GrantStream puts each event here
 * (`event`); the consumer fans it out to the issuer's endpoints in that mode that want its kind,
 * writing one message item per endpoint (its id derived from the event's and the endpoint's, so a
 * repeated event makes the same message) and putting one `delivery` back here per endpoint. A
 * delivery signs afresh and sends; a failure puts the next attempt back with a delay (SQS's
 * DelaySeconds is at most 900 s, so a longer wait is several hops carrying `notBefore`): every
 * attempt and every hop is a new message, so no message is received more than a few times.
 * `replay` walks an endpoint's messages since a time, a page at a time.
 */
export const WEBHOOKS_QUEUE = {
  id: 'Webhooks',
  // 6 x WebhookSender's 60 s.
  visibilityTimeoutSeconds: 360,
  // Longer than the retry horizon (about 3 days, WEBHOOK_RETRY_SCHEDULE_SECONDS): a message waits
  // at most 900 s before its next hop, but an outage of the consumer must not lose attempts.
  retentionSeconds: 4 * DAY,
  // A message is one attempt (or one hop): it is received again only when the consumer itself
  // failed (DynamoDB away, a crash), never because a receiver failed.
  maxReceiveCount: 5,
  deadLetter: { id: 'WebhooksDeadLetters', retentionSeconds: 14 * DAY },
  urlVariable: 'WEBHOOKS_QUEUE_URL',
} as const satisfies QueueSpec

export const QUEUES: readonly QueueSpec[] = [
  OFFER_MAIL_QUEUE,
  GRANT_BATCH_ROWS_QUEUE,
  WEBHOOKS_QUEUE,
]
export type QueueId =
  | (typeof OFFER_MAIL_QUEUE)['id']
  | (typeof GRANT_BATCH_ROWS_QUEUE)['id']
  | (typeof WEBHOOKS_QUEUE)['id']

/**
 * How much of a program's grant traffic send to many may be, on the stage: at most
 * `maxConcurrency` worker invocations, each granting `rowsInParallel` rows at once, so at most
 * their product of grants in flight: what the counter shards (domain/program-shards.ts) are
 * measured to sustain on one program (`npm run bench`, batch-model; docs/performance.md).
 */
export const BATCH_WORK = {
  maxConcurrency: 4,
  rowsInParallel: 16,
} as const

/**
 * The messages on OfferMail: a grant's mail (core/grant-stream.ts writes it) or a recipient's
 * request for a new link (POST /recipient/links); their schema is functions/domain's.
 */
export type {
  HoldingsLinkMessage,
  LinkRequestMessage,
  OfferMailMessage,
  OfferMailQueueMessage,
} from './domain/offer-mail-message.schema'

/** Grant items (`gr_...`) of the grants table: both stream readers' first event filter. */
const GRANT_ITEMS = { dynamodb: { Keys: { grantId: { S: [{ prefix: 'gr_' }] } } } } as const

/**
 * How both readers of the grants stream read it: from the oldest record on a new stage, a failed
 * record retried (its batch halved) at most 10 times, then the batch's metadata to `onFailure`.
 */
const GRANTS_STREAM = {
  kind: 'stream',
  table: 'grants',
  viewType: 'NEW_AND_OLD_IMAGES',
  startingPosition: 'TRIM_HORIZON',
  retryAttempts: 10,
  bisectBatchOnError: true,
  reportBatchItemFailures: true,
} as const

export const CONSUMERS = [
  {
    id: 'GrantStream',
    entry: 'functions/handlers/grant-stream.handler.ts',
    trigger: {
      ...GRANTS_STREAM,
      // 4 batches of 50 per shard (docs/performance.md, "The stream reader"): in the contention
      // model one batch at a time per shard falls behind at 2,000 grants a second (iterator age
      // 10.6 s after 20 s and growing); 4 of 50 stay under 5 s, with SQS twice as slow too.
      batchSize: 50,
      maxBatchingWindowSeconds: 1,
      parallelizationFactor: 4,
      onFailure: GRANT_STREAM_FAILURES,
      filters: [
        GRANT_ITEMS,
        // A batch that has finished (batch.completed): not its chunks, nor its counters' updates.
        {
          dynamodb: {
            NewImage: { itemType: { S: ['grantBatch'] }, status: { S: ['done', 'canceled'] } },
          },
        },
        // A program's value was set (program.value_changed): its outbox item, once, when put.
        { eventName: ['INSERT'], dynamodb: { NewImage: { itemType: { S: ['programValue'] } } } },
      ],
    },
    timeoutSeconds: 30,
    memorySize: 256,
    // The timers of a batch's new grants: BatchWriteItem, 25 at a time (wiring/grant-stream.consumer.ts).
    access: { timers: ['dynamodb:BatchWriteItem'] },
    // Offer mail, and the webhook events (core/webhook-events.ts) for WebhookSender's fan-out.
    sends: [OFFER_MAIL_QUEUE.id, WEBHOOKS_QUEUE.id],
  },
  {
    // The second reader of the grants stream (docs/decisions/figures-from-the-stream.md): the
    // figures' write units and retries no longer hold back GrantStream's mail and timers.
    id: 'GrantFigures',
    entry: 'functions/handlers/grant-figures.handler.ts',
    trigger: {
      ...GRANTS_STREAM,
      // Batches of 100: the store reads a batch's counted-grant markers in BatchGetItems of 100
      // and sums its holders and days in its transactions, so a bigger batch means fewer calls per
      // record (0.12 a grant, `figures-cost`). Its lag is the figures table's write units, not its
      // lanes: in the model 8.4 s at 1,000 grants a second, 15.9 s at 2,000 (`stream-model`).
      batchSize: 100,
      maxBatchingWindowSeconds: 1,
      parallelizationFactor: 4,
      onFailure: GRANT_FIGURES_FAILURES,
      // Grant items only: the figures count grants (core/grant-figures.ts checks again).
      filters: [GRANT_ITEMS],
    },
    timeoutSeconds: 30,
    memorySize: 256,
    // stores/figures.dynamodb.ts: the batch's counted-grant markers read in BatchGetItem, then
    // transactions of UpdateItem (markers, holders, daily counters).
    access: { figures: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem'] },
  },
  {
    id: 'OfferMailer',
    entry: 'functions/handlers/offer-mailer.handler.ts',
    trigger: {
      kind: 'queue',
      queue: OFFER_MAIL_QUEUE.id,
      batchSize: 10,
      maxBatchingWindowSeconds: 5,
      // SES's sending rate is per account (1 a second in the sandbox): two invocations at most,
      // each pacing its sends to half of it, never hit it, however many offers a batch makes.
      maxConcurrency: 2,
      reportBatchItemFailures: true,
    },
    // Ten paced messages at 1 a second, with their DynamoDB writes, well inside.
    timeoutSeconds: 60,
    memorySize: 256,
    access: {
      // issueOfferLink: read the grant, write the token item and its hash on the grant (one
      // transaction); recordDelivery: the history line and offer.delivery (UpdateItem).
      // TEST magic addresses move the grant (testMove), which may give shares back.
      // A link request (POST /recipient/links): the attempt per address (UpdateItem), the
      // address's open grants (the index, then BatchGetItem), `offer.resendRequestedAt`.
      // A holdings sign-in (POST /recipient/holdings/link): the attempt per address, the
      // address's grants, a `holdings-token#` item per link (PutItem), the TEST inbox.
      grants: [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:BatchGetItem',
      ],
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
      // TEST mode's mail goes here, never to SES.
      inbox: ['dynamodb:PutItem'],
      // The issuer's name, shown in the mail as who grants (kept a few minutes per process).
      issuers: ['dynamodb:GetItem'],
    },
    indexes: { grants: { [INDEX.grantsByRecipient]: ['dynamodb:Query'] } },
    mail: 'paced',
  },
  {
    id: 'GrantBatchWorker',
    entry: 'functions/handlers/grant-batch-worker.handler.ts',
    trigger: {
      kind: 'queue',
      queue: GRANT_BATCH_ROWS_QUEUE.id,
      // Two chunks (up to 100 rows each) an invocation, side by side over its 16 rows in flight, so
      // one chunk's last rows and commit overlap the next one's rows; a partial batch response
      // sends back only a chunk that failed.
      batchSize: 2,
      maxBatchingWindowSeconds: 0,
      maxConcurrency: BATCH_WORK.maxConcurrency,
      reportBatchItemFailures: true,
    },
    // A chunk of 100 rows, 16 at a time, takes about a second; a minute covers throttling and retries.
    timeoutSeconds: 60,
    memorySize: 512,
    access: {
      // A row's grant: the grant API's transaction (program update, grant put) and its reads (the
      // shards' in one BatchGetItem, for a row larger than a slice or a slice found dry).
      programs: ['dynamodb:UpdateItem', 'dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      // The batch and its chunks (read, results, counters) and the rows' grants.
      grants: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      // The `batch.finish` entry.
      audit: ['dynamodb:PutItem'],
    },
    // The committer is e-mailed when the batch finishes.
    mail: true,
  },
  {
    id: 'MailEvents',
    entry: 'functions/handlers/mail-events.handler.ts',
    trigger: {
      kind: 'topic',
      topic: 'MailEventsTopic',
      retryAttempts: 2,
      deadLetter: MAIL_EVENTS_DEAD_LETTERS,
    },
    timeoutSeconds: 10,
    memorySize: 256,
    // recordDelivery('bounced' | 'complained'): read the grant, append the history line.
    access: { grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
  },
  {
    id: 'OfferSweep',
    entry: 'functions/handlers/offer-sweep.handler.ts',
    trigger: { kind: 'schedule', expression: 'rate(1 minute)', periodSeconds: 60 },
    timeoutSeconds: 60,
    memorySize: 256,
    access: {
      // Each slot's due timers (Query), each taken (UpdateItem: its lease, so two runs at once
      // never act on one timer) and deleted once handled.
      timers: ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      // expire (state, history, returned shares in one transaction) and remind (offer.remindedAt).
      grants: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      // BatchGetItem: a grant made before draws were recorded gives its shares back to the shards
      // that issued them, read first (grant-life.dynamodb.ts, olderReturn).
      programs: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'],
    },
  },
  {
    id: 'WebhookSender',
    entry: 'functions/handlers/webhook-sender.handler.ts',
    trigger: {
      kind: 'queue',
      queue: WEBHOOKS_QUEUE.id,
      // Ten messages an invocation, side by side (a receiver may take its 15 s).
      batchSize: 10,
      maxBatchingWindowSeconds: 1,
      // At most 50 receivers waited on at once: one slow integrator cannot take the account's
      // concurrency, and the queue absorbs a burst.
      maxConcurrency: 5,
      reportBatchItemFailures: true,
    },
    // Ten attempts side by side, each at most 15 s (WEBHOOK_LIMITS.timeoutMs), with their writes.
    timeoutSeconds: 60,
    memorySize: 256,
    access: {
      // Endpoints (Query, GetItem) and their bookkeeping (UpdateItem); messages (PutItem, GetItem,
      // UpdateItem: attempts; Query: a replay's pages); the pool-low mark (PutItem, GetItem,
      // UpdateItem, DeleteItem).
      webhooks: [
        'dynamodb:Query',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ],
      // program.pool_low: the head, then head and shards in one TransactGetItems (each item's
      // dynamodb:GetItem is what a transactional read is authorised by).
      programs: ['dynamodb:GetItem'],
      // The owners e-mailed when an endpoint is disabled after failing for days.
      memberships: ['dynamodb:Query'],
      // Disabling an endpoint (410 Gone, failing for days) is audited, in the same transaction.
      audit: ['dynamodb:PutItem'],
    },
    // Deliveries, hops of a long wait and replay pages go back on its own queue.
    sends: [WEBHOOKS_QUEUE.id],
    mail: true,
    // Opens the endpoints' sealed secrets to sign.
    kms: 'decrypt',
  },
  {
    // The request log (issue 33, docs/decisions/request-log.md): the `requests` table.
    id: 'RequestLog',
    entry: 'functions/handlers/request-log.handler.ts',
    trigger: {
      kind: 'logs',
      source: 'grantApiRoutes',
      filterPattern: REQUEST_LOG_FILTER_PATTERN,
      retryAttempts: 2, // idempotent puts: a delivery tried again writes nothing twice
      deadLetter: REQUEST_LOG_DEAD_LETTERS,
    },
    // A delivery (one asynchronous payload) holds a few thousand lines at most, 25 a call.
    timeoutSeconds: 60,
    memorySize: 256,
    access: { requests: ['dynamodb:BatchWriteItem'] },
  },
] as const satisfies readonly ConsumerSpec[]

export type ConsumerId = (typeof CONSUMERS)[number]['id']

export const consumerById = (id: ConsumerId): ConsumerSpec => {
  const found = CONSUMERS.find((c) => c.id === id)
  if (!found) throw new Error(`No consumer ${id}`)
  return found
}

/** Failed stream batches, SES events and request log deliveries: queues no consumer reads. */
export const FAILURE_QUEUES: readonly string[] = [
  ...CONSUMERS.flatMap((c) => (c.trigger.kind === 'stream' ? [c.trigger.onFailure] : [])),
  MAIL_EVENTS_DEAD_LETTERS,
  ...CONSUMERS.flatMap((c) => (c.trigger.kind === 'logs' ? [c.trigger.deadLetter] : [])),
]

/** The tables with a stream, and its view type: the stack and local/tables.ts both read it. */
export const STREAMS: Partial<Record<TableKey, 'NEW_AND_OLD_IMAGES'>> = Object.fromEntries(
  CONSUMERS.flatMap((c) =>
    c.trigger.kind === 'stream' ? [[c.trigger.table, c.trigger.viewType] as const] : [],
  ),
)
