import { Aws, Duration, Validations } from 'aws-cdk-lib'
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2'
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch'
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions'
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb'
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam'
import type { IFunction } from 'aws-cdk-lib/aws-lambda'
import { Topic } from 'aws-cdk-lib/aws-sns'
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions'
import type { IQueue } from 'aws-cdk-lib/aws-sqs'
import { Construct } from 'constructs'

export type ServiceAlarmsProps = {
  api: HttpApi
  /** By route id: construct ids come from the names, never from positions in a list. */
  functions: Record<string, IFunction>
  /**
   * The tables the functions touch, by name, each with the IAM actions the functions hold on it
   * and its indexes (functions/routes.ts): the operations alarmed follow from them
   * (`operationsAllowedBy`), and the names of its global secondary indexes (their read and write
   * throttle events are alarmed with the table's). The issuers table is not here when no function touches it: only the
   * admin CLI uses it, and a throttle there reaches the operator as an error on the spot.
   */
  tables: Record<string, { table: Table; actions: readonly string[]; indexes?: readonly string[] }>
  /** Tables whose items grant transactions hold: conflicts there mean serialised grants. */
  transactionTables: string[]
  latencyAlarmMs: number
  alarmEmail?: string
  /** Queues where failures wait for an operator, by name: any message there raises an alarm. */
  deadLetterQueues?: Record<string, IQueue>
  /**
   * Queues a consumer reads, by name: their oldest message this old raises an alarm (each queue's
   * threshold: lib/grant-pipeline.ts QUEUE_MAX_AGE_SECONDS).
   */
  queueAges?: Record<string, { queue: IQueue; maxAgeSeconds: number }>
  /** Functions reading a table's stream, by name: falling this far behind raises an alarm. */
  streamReaders?: Record<string, { fn: IFunction; maxIteratorAgeMs: number }>
}

/**
 * The DynamoDB operations (the `Operation` dimension of ThrottledRequests and SystemErrors) that
 * an IAM action lets a function call. IAM has no action for a transaction: TransactWriteItems is
 * authorised item by item (PutItem, UpdateItem, DeleteItem, ConditionCheckItem), TransactGetItems by
 * GetItem ("Using IAM policies with DynamoDB transactions", developer guide).
 */
const OPERATIONS_OF_ACTION: Record<string, readonly Operation[]> = {
  GetItem: [Operation.GET_ITEM, Operation.TRANSACT_GET_ITEMS],
  BatchGetItem: [Operation.BATCH_GET_ITEM],
  Query: [Operation.QUERY],
  Scan: [Operation.SCAN],
  PutItem: [Operation.PUT_ITEM, Operation.TRANSACT_WRITE_ITEMS],
  UpdateItem: [Operation.UPDATE_ITEM, Operation.TRANSACT_WRITE_ITEMS],
  DeleteItem: [Operation.DELETE_ITEM, Operation.TRANSACT_WRITE_ITEMS],
  ConditionCheckItem: [Operation.TRANSACT_WRITE_ITEMS],
  BatchWriteItem: [Operation.BATCH_WRITE_ITEM],
}

/**
 * Every operation the given IAM actions (`dynamodb:GetItem`, ...) let a function call, in a stable
 * order. An action this list does not know stops the synth: its operation would go unwatched.
 */
export const operationsAllowedBy = (actions: readonly string[]): Operation[] => {
  const found = new Set<Operation>()
  for (const action of actions) {
    const operations = OPERATIONS_OF_ACTION[action.replace(/^dynamodb:/, '')]
    if (operations === undefined) {
      throw new Error(
        `No alarm knows the DynamoDB action ${action}: add its operations to OPERATIONS_OF_ACTION in lib/service-alarms.ts`,
      )
    }
    for (const operation of operations) found.add(operation)
  }
  return Object.values(Operation).filter((operation) => found.has(operation))
}

/** Metrics one CloudWatch alarm may evaluate (metric math included). */
const METRICS_PER_ALARM = 10

/**
 * The sum of counts, each missing datapoint taken as 0: AWS publishes a count such as DynamoDB's
 * ThrottledRequests for an operation only in a period it happened, and a sum with a missing term
 * is missing (the alarm would read "no data", not breaching, while one term shows throttling).
 */
export const filledSum = (ids: readonly string[]) => ids.map((id) => `FILL(${id}, 0)`).join(' + ')

/** The metric id of an index's throttle events in an alarm's math (ids start lower-case). */
const indexMetricId = (kind: 'reads' | 'writes', index: string) => `${kind}_${index.toLowerCase()}`

/** Every alarm's ARN in this stack's account and region: what may publish to the topic. */
const alarmSourceArn = () =>
  `arn:${Aws.PARTITION}:cloudwatch:${Aws.REGION}:${Aws.ACCOUNT_ID}:alarm:*`

const PERIOD = Duration.minutes(5)

/** Conflicts on one table in 5 minutes, in each of 3 periods running, that raise the alarm. */
export const TRANSACTION_CONFLICT_THRESHOLD = 100

/**
 * What should wake someone: server errors seen by callers, function errors and throttles, slow
 * answers, DynamoDB refusing or failing requests, failures waiting in a queue, a stream reader
 * falling behind. With an e-mail, every alarm notifies it (and says when it is OK again).
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = []
  readonly topic?: Topic

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id)
    this.apiAlarms(props)
    this.functionAlarms(props.functions)
    for (const [name, table] of Object.entries(props.tables)) {
      this.tableAlarms(name, table, props.transactionTables.includes(name))
    }
    this.queueAlarms(props)
    if (props.alarmEmail) this.topic = this.notify(props.alarmEmail)
  }

  private alarm(
    alarmId: string,
    metric: IMetric,
    threshold: number,
    description: string,
    evaluationPeriods = 1,
  ) {
    const created = new Alarm(this, alarmId, {
      metric,
      threshold,
      evaluationPeriods,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    })
    this.alarms.push(created)
    return created
  }

  private apiAlarms(props: ServiceAlarmsProps) {
    const period = PERIOD
    this.alarm(
      'Api5xxRate',
      new MathExpression({
        // FILL: a period with requests and no 5xx datapoint is 0 %, not "no data".
        expression: 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
        usingMetrics: {
          errors: props.api.metricServerError({ period, statistic: 'Sum' }),
          requests: props.api.metricCount({ period, statistic: 'Sum' }),
        },
        period,
        label: '5xx rate (%)',
      }),
      1,
      'More than 1% of API requests answered 5xx in 5 minutes.',
    )
    this.alarm(
      'ApiLatencyP99',
      props.api.metricLatency({ period, statistic: 'p99' }),
      props.latencyAlarmMs,
      `API p99 latency at or above ${props.latencyAlarmMs} ms for 15 minutes.`,
      3,
    )
  }

  /**
   * One alarm a function over both its errors and its throttles: it fires exactly when either
   * alarm of the former pair would (both are counts, so their sum is at least 1 when either is),
   * evaluates and costs the same two metrics, and is one CloudFormation resource instead of two
   * (docs/decisions/function-alarms.md). FILL: Lambda publishes no Errors for a function
   * throttled on every call (filledSum).
   */
  private functionAlarms(functions: Record<string, IFunction>) {
    const period = PERIOD
    for (const [name, fn] of Object.entries(functions)) {
      this.alarm(
        `${name}ErrorsOrThrottles`,
        new MathExpression({
          expression: filledSum(['errors', 'throttles']),
          usingMetrics: {
            errors: fn.metricErrors({ period, statistic: 'Sum' }),
            throttles: fn.metricThrottles({ period, statistic: 'Sum' }),
          },
          period,
          label: `${name}: errors + throttles`,
        }),
        1,
        `${name} failed (unhandled error or timeout) or was throttled (concurrency limit reached) in 5 minutes: the alarm's graph shows which.`,
      )
    }
  }

  private tableAlarms(
    name: string,
    { table, actions, indexes = [] }: ServiceAlarmsProps['tables'][string],
    transactions: boolean,
  ) {
    const period = PERIOD
    const operations = operationsAllowedBy(actions)
    const sum = (label: string, metrics: Record<string, IMetric>) => {
      const count = Object.keys(metrics).length
      if (count > METRICS_PER_ALARM) {
        throw new Error(
          `Table ${name}: ${count} metrics for "${label}", more than the ${METRICS_PER_ALARM} one alarm may evaluate`,
        )
      }
      return new MathExpression({
        expression: filledSum(Object.keys(metrics)),
        usingMetrics: metrics,
        period,
        label,
      })
    }
    // Per operation, as aws-cdk-lib's metricThrottledRequestsForOperations builds them (ids: the
    // operation in lower case), but each term FILLed.
    const perOperation = (metricName: string) =>
      Object.fromEntries(
        operations.map((operation) => [
          operation.toLowerCase(),
          table.metric(metricName, {
            dimensionsMap: { TableName: table.tableName, Operation: operation },
            statistic: 'Sum',
            period,
          }),
        ]),
      )
    this.alarm(
      `${name}TableThrottles`,
      sum(`${name}: throttled requests`, perOperation('ThrottledRequests')),
      1,
      `DynamoDB throttled requests (${operations.join(', ')}): callers got 503 and must retry.`,
    )
    this.alarm(
      `${name}TableSystemErrors`,
      sum(`${name}: system errors`, perOperation('SystemErrors')),
      1,
      `DynamoDB returned system errors, HTTP 500 (${operations.join(', ')}).`,
    )
    // ThrottledRequests counts a BatchGetItem or BatchWriteItem only when every item of it was
    // throttled; the throttle events count each item, on the table and (a dimension of their
    // own) on each index.
    const events: Record<string, IMetric> = {}
    for (const [kind, metricName] of [
      ['reads', 'ReadThrottleEvents'],
      ['writes', 'WriteThrottleEvents'],
    ] as const) {
      events[kind] = table.metric(metricName, {
        dimensionsMap: { TableName: table.tableName },
        statistic: 'Sum',
        period,
      })
      for (const index of indexes) {
        events[indexMetricId(kind, index)] = table.metric(metricName, {
          dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: index },
          statistic: 'Sum',
          period,
        })
      }
    }
    this.alarm(
      `${name}TableThrottleEvents`,
      sum(`${name}: read and write throttle events`, events),
      1,
      `DynamoDB throttled reads or writes of items, batch items included (on the table${indexes.length > 0 ? ` or its indexes ${indexes.join(', ')}` : ''}): the alarm's graph shows which.`,
    )
    if (transactions) {
      // Conflicts are retried inside the function, so a few are normal; sustained ones mean
      // grants on one program or one key are being serialised (README "Capacity").
      this.alarm(
        `${name}TableTransactionConflicts`,
        table.metric('TransactionConflict', { period, statistic: 'Sum' }),
        TRANSACTION_CONFLICT_THRESHOLD,
        `At least ${TRANSACTION_CONFLICT_THRESHOLD} transaction conflicts in 5 minutes, 3 periods running: grants on one program or one key are contending (callers may get 409 request_conflict).`,
        3,
      )
    }
  }

  private queueAlarms(props: ServiceAlarmsProps) {
    const period = PERIOD
    for (const [name, queue] of Object.entries(props.deadLetterQueues ?? {})) {
      this.alarm(
        `${name}Depth`,
        queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        1,
        `A message is waiting in ${name}: something failed for good (docs/deploying.md, "A message in a dead-letter queue", says how to read and redrive it).`,
      )
    }
    for (const [name, { queue, maxAgeSeconds }] of Object.entries(props.queueAges ?? {})) {
      this.alarm(
        `${name}OldestMessage`,
        queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
        maxAgeSeconds,
        `The oldest message in ${name} has waited ${maxAgeSeconds} s or more: its consumer is failing or cannot keep up (lib/grant-pipeline.ts says why this threshold).`,
      )
    }
    for (const [name, { fn, maxIteratorAgeMs }] of Object.entries(props.streamReaders ?? {})) {
      this.alarm(
        `${name}IteratorAge`,
        fn.metric('IteratorAge', { period, statistic: 'Maximum' }),
        maxIteratorAgeMs,
        `${name} is ${maxIteratorAgeMs / 1000} s or more behind the stream it reads (records are kept 24 hours, then lost).`,
      )
    }
  }

  /** The topic every alarm notifies (in ALARM and OK again), and its e-mail subscription. */
  private notify(email: string) {
    const topic = new Topic(this, 'Topic', {
      displayName: 'Virtual-share grant alarms',
      enforceSSL: true,
    })
    // enforceSSL made a topic policy (its TLS Deny), and a topic policy replaces SNS's default
    // one: without this statement CloudWatch may not publish ("Why didn't I receive an SNS
    // notification for my CloudWatch alarm trigger?", AWS knowledge center). Scoped to this
    // account's alarms in this region, as a service principal's grant should be (confused deputy).
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnLike: { 'aws:SourceArn': alarmSourceArn() },
        },
      }),
    )
    topic.addSubscription(new EmailSubscription(email))
    const action = new SnsAction(topic)
    for (const a of this.alarms) {
      a.addAlarmAction(action)
      a.addOkAction(action)
    }
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry no customer data; CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key costs more than the data warrants.',
    })
    return topic
  }
}
