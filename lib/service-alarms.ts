import { Duration, Validations } from 'aws-cdk-lib'
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
   * (`operationsAllowedBy`). The issuers table is not here when no function touches it: only the
   * admin CLI uses it, and a throttle there reaches the operator as an error on the spot.
   */
  tables: Record<string, { table: Table; actions: readonly string[] }>
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

/** Conflicts on one table in 5 minutes, in each of 3 periods running, that raise the alarm. */
export const TRANSACTION_CONFLICT_THRESHOLD = 100

/**
 * What should wake someone: server errors seen by callers, function errors and throttles, slow
 * answers, and DynamoDB refusing or failing requests.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = []
  readonly topic?: Topic

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id)
    const period = Duration.minutes(5)
    const alarm = (
      alarmId: string,
      metric: IMetric,
      threshold: number,
      description: string,
      evaluationPeriods = 1,
    ) => {
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

    alarm(
      'Api5xxRate',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
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
    alarm(
      'ApiLatencyP99',
      props.api.metricLatency({ period, statistic: 'p99' }),
      props.latencyAlarmMs,
      `API p99 latency at or above ${props.latencyAlarmMs} ms for 15 minutes.`,
      3,
    )
    // One alarm a function over both its errors and its throttles: it fires exactly when either
    // alarm of the former pair would (both are counts, so their sum is at least 1 when either is),
    // evaluates and costs the same two metrics, and is one CloudFormation resource instead of two
    // (the stack's 500-resource limit: docs/decisions/function-alarms.md). FILL: Lambda publishes
    // no Errors for a function throttled on every call, and a sum with a missing term is missing.
    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(
        `${name}ErrorsOrThrottles`,
        new MathExpression({
          expression: 'FILL(errors, 0) + FILL(throttles, 0)',
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
    for (const [name, { table, actions }] of Object.entries(props.tables)) {
      const operations = operationsAllowedBy(actions)
      if (operations.length > METRICS_PER_ALARM) {
        throw new Error(
          `Table ${name}: ${operations.length} operations to alarm on, more than the ${METRICS_PER_ALARM} metrics one alarm may evaluate`,
        )
      }
      alarm(
        `${name}TableThrottles`,
        table.metricThrottledRequestsForOperations({ operations, period }),
        1,
        `DynamoDB throttled requests (${operations.join(', ')}): callers got 503 and must retry.`,
      )
      alarm(
        `${name}TableSystemErrors`,
        table.metricSystemErrorsForOperations({ operations, period }),
        1,
        `DynamoDB returned system errors, HTTP 500 (${operations.join(', ')}).`,
      )
      if (props.transactionTables.includes(name)) {
        // Conflicts are retried inside the function, so a few are normal; sustained ones mean
        // grants on one program or one key are being serialised (README "Capacity").
        alarm(
          `${name}TableTransactionConflicts`,
          table.metric('TransactionConflict', { period, statistic: 'Sum' }),
          TRANSACTION_CONFLICT_THRESHOLD,
          `At least ${TRANSACTION_CONFLICT_THRESHOLD} transaction conflicts in 5 minutes, 3 periods running: grants on one program or one key are contending (callers may get 409 request_conflict).`,
          3,
        )
      }
    }

    for (const [name, queue] of Object.entries(props.deadLetterQueues ?? {})) {
      alarm(
        `${name}Depth`,
        queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
        1,
        `A message is waiting in ${name}: something failed for good (docs/deploying.md, "A message in a dead-letter queue", says how to read and redrive it).`,
      )
    }
    for (const [name, { queue, maxAgeSeconds }] of Object.entries(props.queueAges ?? {})) {
      alarm(
        `${name}OldestMessage`,
        queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
        maxAgeSeconds,
        `The oldest message in ${name} has waited ${maxAgeSeconds} s or more: its consumer is failing or cannot keep up (lib/grant-pipeline.ts says why this threshold).`,
      )
    }
    for (const [name, { fn, maxIteratorAgeMs }] of Object.entries(props.streamReaders ?? {})) {
      alarm(
        `${name}IteratorAge`,
        fn.metric('IteratorAge', { period, statistic: 'Maximum' }),
        maxIteratorAgeMs,
        `${name} is ${maxIteratorAgeMs / 1000} s or more behind the stream it reads (records are kept 24 hours, then lost).`,
      )
    }

    if (props.alarmEmail) {
      this.topic = new Topic(this, 'Topic', {
        displayName: 'Virtual-share grant alarms',
        enforceSSL: true,
      })
      this.topic.addSubscription(new EmailSubscription(props.alarmEmail))
      const action = new SnsAction(this.topic)
      for (const a of this.alarms) {
        a.addAlarmAction(action)
        a.addOkAction(action)
      }
      Validations.of(this.topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry no customer data; CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key costs more than the data warrants.',
      })
    }
  }
}
