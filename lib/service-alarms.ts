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
import { Construct } from 'constructs'

export type ServiceAlarmsProps = {
  api: HttpApi
  /** By route id: construct ids come from the names, never from positions in a list. */
  functions: Record<string, IFunction>
  /**
   * The tables the functions touch, by name. The issuers table is not here: only the admin CLI
   * uses it, and a throttle there reaches the operator as an error on the spot, not a caller.
   */
  tables: Record<string, Table>
  /** Tables whose items grant transactions hold: conflicts there mean serialised grants. */
  transactionTables: string[]
  latencyAlarmMs: number
  alarmEmail?: string
}

/** The operations the functions call; DynamoDB reports throttles and system errors per operation. */
const OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
]

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
    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(
        `${name}Errors`,
        fn.metricErrors({ period, statistic: 'Sum' }),
        1,
        'A Lambda function failed (unhandled error or timeout).',
      )
      alarm(
        `${name}Throttles`,
        fn.metricThrottles({ period, statistic: 'Sum' }),
        1,
        'A Lambda function was throttled: concurrency limit reached.',
      )
    }
    for (const [name, table] of Object.entries(props.tables)) {
      alarm(
        `${name}TableThrottles`,
        table.metricThrottledRequestsForOperations({ operations: OPERATIONS, period }),
        1,
        'DynamoDB throttled requests: callers got 503 and must retry.',
      )
      alarm(
        `${name}TableSystemErrors`,
        table.metricSystemErrorsForOperations({ operations: OPERATIONS, period }),
        1,
        'DynamoDB returned system errors (HTTP 500).',
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
