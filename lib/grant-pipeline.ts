import { Aws, Duration, Validations } from 'aws-cdk-lib'
import type { Table } from 'aws-cdk-lib/aws-dynamodb'
import { Rule, Schedule } from 'aws-cdk-lib/aws-events'
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda'
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations'
import {
  DynamoEventSource,
  SnsEventSource,
  SqsDlq,
  SqsEventSource,
} from 'aws-cdk-lib/aws-lambda-event-sources'
import {
  FilterPattern,
  type ILogGroup,
  type RetentionDays,
  SubscriptionFilter,
} from 'aws-cdk-lib/aws-logs'
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations'
import {
  ConfigurationSet,
  EmailSendingEvent,
  EventDestination,
  SuppressionReasons,
} from 'aws-cdk-lib/aws-ses'
import { Topic } from 'aws-cdk-lib/aws-sns'
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs'
import { Construct } from 'constructs'
import {
  CONSUMERS,
  type ConsumerId,
  type ConsumerSpec,
  FAILURE_QUEUES,
  type LogsTrigger,
  QUEUES,
  type QueueId,
} from '../functions/consumers'
import { ENV } from '../functions/env-names'
import type { TableKey } from '../functions/table-schema'
import { ApiFunction, sharedLogGroup } from './api-function'

/** Queues with no consumer (a failed stream batch's record, failed SES events): kept 14 days. */
const FAILURE_RETENTION = Duration.days(14)

/**
 * The age of the oldest offer mail waiting, in seconds, that raises its alarm: an offer an hour
 * late. A sandbox account (1 message a second) takes about 14 hours over a batch of 50,000, and
 * the alarm then says so; a production account's rate (tens a second) clears one in an hour.
 */
export const OFFER_MAIL_MAX_AGE_SECONDS = 3_600
/**
 * The age of the oldest chunk of a send-to-many batch waiting, in seconds, that raises its alarm:
 * 15 minutes. At the stage's bound (functions/consumers.ts BATCH_WORK: 4 invocations of about a
 * second a chunk of 100 rows) the 500 chunks of a 50,000-row batch are all taken within about
 * 2 minutes, so a healthy queue never holds a message that long: 15 minutes means about seven
 * full batches queued at once, or a chunk handed back twice (each failed receive waits the
 * visibility timeout, 6 minutes), or a worker that does not run at all (throttled, failing at
 * init). Well inside the queue's 4 days and before a batch shows as stalled for long (10 minutes
 * without progress, functions/domain/batch.ts).
 */
export const GRANT_BATCH_ROWS_MAX_AGE_SECONDS = 900
/** Each queue's oldest-message alarm threshold (a queue with none fails the type check). */
/**
 * Webhooks: every message waits at most SQS's 900 s delay before it is due (a longer wait is
 * several hops), and a due one is taken within seconds, so half an hour means the sender is not
 * keeping up (failing at init, throttled, DynamoDB away).
 */
export const WEBHOOKS_MAX_AGE_SECONDS = 1800
export const QUEUE_MAX_AGE_SECONDS: Record<QueueId, number> = {
  OfferMail: OFFER_MAIL_MAX_AGE_SECONDS,
  GrantBatchRows: GRANT_BATCH_ROWS_MAX_AGE_SECONDS,
  Webhooks: WEBHOOKS_MAX_AGE_SECONDS,
}
/**
 * How far behind the grants stream's reader may fall, in milliseconds, before its alarm: offers
 * and timers of new grants five minutes late. The stream keeps records 24 hours, after which
 * they are lost: this alarm is the warning long before.
 */
export const STREAM_MAX_ITERATOR_AGE_MS = 5 * 60_000

export type MailSettings = {
  /**
   * Grants ses:SendEmail on the identity and the configuration set, and sets MAIL_* on `fn`;
   * `paced`: also ses:GetAccount, the account's sending rate.
   */
  allow: (
    fn: ApiFunction,
    configurationSet: { name: string; arn: string },
    options: { paced: boolean },
  ) => void
}

export type GrantPipelineProps = {
  projectRoot: string
  tables: Record<TableKey, Table>
  /** What every function gets (the table names, ...). */
  environment: Record<string, string>
  /** `https://<console domain>`: offer links are `<origin>/offer#t=...` (RECIPIENT_ORIGIN). */
  recipientOrigin: string
  /**
   * The console's address (CONSOLE_URL), set on the consumers that send mail: the batch worker's
   * finish notice links to the program's page there.
   */
  consoleUrl: string
  mail: MailSettings
  logRetention: RetentionDays
  ephemeral: boolean
  logLevel: string
  serviceName: string
  /**
   * The log groups a `logs` trigger subscribes to, by its `source`: the grant API's routes' (one
   * group they share, lib/route-functions.ts), for the request log.
   */
  logSources: Record<LogsTrigger['source'], readonly ILogGroup[]>
}

/**
 * What happens after a request has stored its change (functions/consumers.ts, the one list): the
 * grants table's stream and its reader, the queues it feeds with their dead letters, their
 * consumers, the SES configuration set whose bounce and complaint events reach MailEvents through
 * SNS, and the sweep's schedule. Every function, event source, queue and IAM statement comes from
 * that list, so what `npm start` runs locally (local/pipeline.ts) and what this builds cannot drift.
 */
export class GrantPipeline extends Construct {
  readonly functions: Record<ConsumerId, ApiFunction>
  /** Every queue, by its id in functions/consumers.ts (OfferMail, its dead letters, failures). */
  readonly queues: Record<string, Queue>
  /** The queues where what failed for good waits for an operator: each alarms on its depth. */
  readonly deadLetterQueues: Record<string, Queue>
  /** The queues a consumer reads: each alarms on the age of its oldest message. */
  readonly workQueues: Record<string, Queue>
  readonly configurationSet: ConfigurationSet
  readonly mailEventsTopic: Topic
  /** The functions that read a table's stream: each alarms on its iterator age. */
  readonly streamReaders: Record<string, ApiFunction>

  private readonly logSources: GrantPipelineProps['logSources']

  constructor(scope: Construct, id: string, props: GrantPipelineProps) {
    super(scope, id)
    this.logSources = props.logSources
    this.queues = {}
    this.deadLetterQueues = {}
    this.workQueues = {}
    this.streamReaders = {}
    const queue = (queueId: string, extra: ConstructorParameters<typeof Queue>[2] = {}) => {
      const made = new Queue(this, queueId, {
        // SQS-managed keys: senders and consumers need no KMS grant; TLS is required.
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        ...extra,
      })
      this.queues[queueId] = made
      return made
    }
    for (const spec of QUEUES) {
      const deadLetter = queue(spec.deadLetter.id, {
        retentionPeriod: Duration.seconds(spec.deadLetter.retentionSeconds),
      })
      this.deadLetterQueues[spec.deadLetter.id] = deadLetter
      this.workQueues[spec.id] = queue(spec.id, {
        visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
        retentionPeriod: Duration.seconds(spec.retentionSeconds),
        deadLetterQueue: { queue: deadLetter, maxReceiveCount: spec.maxReceiveCount },
      })
    }
    for (const failures of FAILURE_QUEUES) {
      this.deadLetterQueues[failures] = queue(failures, { retentionPeriod: FAILURE_RETENTION })
    }
    const queueOf = (queueId: string) => {
      const found = this.queues[queueId]
      if (!found)
        throw new Error(`functions/consumers.ts names a queue ${queueId} it does not list`)
      return found
    }

    // SES: the configuration set the offer mail is sent with; its bounces and complaints are
    // published to the topic MailEvents reads (SES adds the topic policy for ses.amazonaws.com,
    // limited to this account and this configuration set).
    const topicTriggers = CONSUMERS.flatMap((c) =>
      c.trigger.kind === 'topic' ? [c.trigger.topic] : [],
    )
    const [topicId] = topicTriggers
    if (topicTriggers.length !== 1 || topicId === undefined) {
      throw new Error('functions/consumers.ts must name exactly one SES events topic')
    }
    this.mailEventsTopic = new Topic(this, topicId, {
      displayName: 'Virtual-share offer mail: SES bounce and complaint events',
      enforceSSL: true,
    })
    this.configurationSet = new ConfigurationSet(this, 'MailConfigurationSet', {
      reputationMetrics: true,
      sendingEnabled: true,
      // Never mail an address that bounced or complained again (the account list, per message).
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
    })
    this.configurationSet.addEventDestination('BouncesAndComplaints', {
      destination: EventDestination.snsTopic(this.mailEventsTopic),
      events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    })
    const configurationSet = {
      name: this.configurationSet.configurationSetName,
      arn: `arn:${Aws.PARTITION}:ses:${Aws.REGION}:${Aws.ACCOUNT_ID}:configuration-set/${this.configurationSet.configurationSetName}`,
    }

    // One log group for every consumer (streams named by function keep them apart).
    const logGroup = sharedLogGroup(this, 'ConsumerLogs', props)
    this.functions = Object.fromEntries(
      (CONSUMERS as readonly ConsumerSpec[]).map((spec) => {
        const fn = new ApiFunction(this, spec.id, {
          logGroup,
          projectRoot: props.projectRoot,
          entry: spec.entry,
          environment: {
            ...props.environment,
            ...Object.fromEntries(
              (spec.sends ?? []).map((target) => {
                const found = QUEUES.find((q) => q.id === target)
                if (!found) throw new Error(`${spec.id} sends to ${target}, which is no queue`)
                return [found.urlVariable, queueOf(target).queueUrl]
              }),
            ),
            ...(spec.mail
              ? { [ENV.recipientOrigin]: props.recipientOrigin, [ENV.consoleUrl]: props.consoleUrl }
              : {}),
          },
          memorySize: spec.memorySize,
          timeout: Duration.seconds(spec.timeoutSeconds),
          logRetention: props.logRetention,
          ephemeral: props.ephemeral,
          logLevel: props.logLevel,
          serviceName: props.serviceName,
          logicalId: `${spec.id}Function`,
        })
        this.grantDeclared(fn, spec, props.tables)
        // Send only: no GetQueueAttributes, no GetQueueUrl (the URL is in the environment).
        for (const target of spec.sends ?? []) {
          fn.role.addToPolicy(
            new PolicyStatement({
              actions: ['sqs:SendMessage'],
              resources: [queueOf(target).queueArn],
            }),
          )
        }
        if (spec.mail) {
          props.mail.allow(fn, configurationSet, {
            paced: spec.mail === 'paced',
          })
        }
        this.attachTrigger(fn, spec, props.tables, queueOf)
        Validations.of(fn.fn).acknowledge({
          id: 'AwsSolutions-L1',
          reason:
            'The runtime is pinned to nodejs24.x, the version the product supports and tests; moving to a newer runtime is a deliberate, tested change, not an automatic one.',
        })
        return [spec.id, fn]
      }),
    ) as Record<ConsumerId, ApiFunction>

    Validations.of(this.mailEventsTopic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'SES publishes bounce and complaint notices here (an address, a grant id, a diagnostic): SES cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key with a policy for SES costs more than the data warrants. TLS is required.',
    })
    for (const id of FAILURE_QUEUES) {
      Validations.of(queueOf(id)).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason:
          'This queue is itself where failures end (a Lambda on-failure destination or asynchronous dead-letter target), read by an operator; its depth has an alarm.',
      })
    }
  }

  /** Exactly the DynamoDB actions the consumer declares, per table and per index. */
  private grantDeclared(fn: ApiFunction, spec: ConsumerSpec, tables: Record<TableKey, Table>) {
    for (const [table, actions] of Object.entries(spec.access) as [TableKey, string[]][]) {
      if (actions.length === 0) continue
      fn.role.addToPolicy(
        new PolicyStatement({ actions: [...actions], resources: [tables[table].tableArn] }),
      )
    }
    for (const [table, byIndex] of Object.entries(spec.indexes ?? {}) as [
      TableKey,
      Record<string, readonly string[]>,
    ][]) {
      for (const [index, actions] of Object.entries(byIndex)) {
        fn.role.addToPolicy(
          new PolicyStatement({
            actions: [...actions],
            resources: [`${tables[table].tableArn}/index/${index}`],
          }),
        )
      }
    }
  }

  private attachTrigger(
    fn: ApiFunction,
    spec: ConsumerSpec,
    tables: Record<TableKey, Table>,
    queueOf: (id: string) => Queue,
  ) {
    const trigger = spec.trigger
    switch (trigger.kind) {
      case 'stream': {
        // The event source grants the stream's read actions (DescribeStream, GetRecords,
        // GetShardIterator on the stream, ListStreams on the table's streams) and SendMessage on
        // the failure queue, which receives a batch's shard and sequence numbers once retries
        // and halving (bisect) are spent.
        fn.fn.addEventSource(
          new DynamoEventSource(tables[trigger.table], {
            startingPosition:
              trigger.startingPosition === 'LATEST'
                ? StartingPosition.LATEST
                : StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            maxBatchingWindow: Duration.seconds(trigger.maxBatchingWindowSeconds),
            parallelizationFactor: trigger.parallelizationFactor,
            retryAttempts: trigger.retryAttempts,
            bisectBatchOnError: trigger.bisectBatchOnError,
            reportBatchItemFailures: trigger.reportBatchItemFailures,
            onFailure: new SqsDlq(queueOf(trigger.onFailure)),
            filters: trigger.filters.map((pattern) => FilterCriteria.filter(pattern)),
          }),
        )
        this.streamReaders[spec.id] = fn
        Validations.of(fn.role).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            "dynamodb:ListStreams only, which the event source grants: IAM has no resource for it (it lists the account's streams, names only); every read of records is on this table's stream ARN.",
        })
        return
      }
      case 'queue': {
        const spec = QUEUES.find((q) => q.id === trigger.queue)
        if (!spec) throw new Error(`No queue ${trigger.queue} in functions/consumers.ts`)
        // AWS's rule for a queue that triggers a function (functions/consumers.ts checks it too).
        if (spec.visibilityTimeoutSeconds < 6 * (fn.fn.timeout?.toSeconds() ?? 3)) {
          throw new Error(
            `Queue ${spec.id}: visibility timeout ${spec.visibilityTimeoutSeconds} s is under 6 x ${fn.node.id}'s timeout`,
          )
        }
        fn.fn.addEventSource(
          new SqsEventSource(queueOf(trigger.queue), {
            batchSize: trigger.batchSize,
            maxBatchingWindow: Duration.seconds(trigger.maxBatchingWindowSeconds),
            ...(trigger.maxConcurrency === undefined
              ? {}
              : { maxConcurrency: trigger.maxConcurrency }),
            reportBatchItemFailures: trigger.reportBatchItemFailures,
          }),
        )
        return
      }
      case 'topic': {
        // SNS invokes asynchronously: Lambda retries a failure, then records the event here.
        fn.fn.configureAsyncInvoke({
          retryAttempts: trigger.retryAttempts,
          onFailure: new SqsDestination(queueOf(trigger.deadLetter)),
        })
        fn.fn.addEventSource(new SnsEventSource(this.mailEventsTopic))
        return
      }
      case 'schedule': {
        // The rule's retry policy covers EventBridge's delivery only; Lambda would still retry a
        // failed asynchronous invocation twice, and hold a throttled one up to 6 hours. Neither:
        // the next run, a period later, does the same work (docs/decisions/sweep-schedule.md).
        fn.fn.configureAsyncInvoke({
          retryAttempts: 0,
          maxEventAge: Duration.seconds(trigger.periodSeconds),
        })
        new Rule(this, `${spec.id}Schedule`, {
          description: `Runs ${spec.id} (${trigger.expression})`,
          schedule: Schedule.expression(trigger.expression),
          // No retry: the next run, a period later, picks up whatever this one left.
          targets: [new LambdaTarget(fn.fn, { retryAttempts: 0 })],
        })
        return
      }
      case 'logs': {
        // CloudWatch Logs invokes asynchronously: Lambda retries a failure, then records the
        // delivery here. Each subscription's destination adds the permission for
        // logs.amazonaws.com, its source ARN that one log group.
        fn.fn.configureAsyncInvoke({
          retryAttempts: trigger.retryAttempts,
          onFailure: new SqsDestination(queueOf(trigger.deadLetter)),
        })
        const groups = [...new Set(this.logSources[trigger.source])]
        if (groups.length === 0) throw new Error(`${spec.id}: no log group of ${trigger.source}`)
        groups.forEach((logGroup, index) => {
          new SubscriptionFilter(this, `${spec.id}Subscription${index === 0 ? '' : index}`, {
            logGroup,
            destination: new LambdaDestination(fn.fn),
            filterPattern: FilterPattern.literal(trigger.filterPattern),
          })
        })
        return
      }
    }
  }
}
