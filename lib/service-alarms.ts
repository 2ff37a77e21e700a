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
  functions: IFunction[]
  tables: Table[]
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
    props.functions.forEach((fn, i) => {
      alarm(
        `FunctionErrors${i}`,
        fn.metricErrors({ period, statistic: 'Sum' }),
        1,
        'A Lambda function failed (unhandled error or timeout).',
      )
      alarm(
        `FunctionThrottles${i}`,
        fn.metricThrottles({ period, statistic: 'Sum' }),
        1,
        'A Lambda function was throttled: concurrency limit reached.',
      )
    })
    props.tables.forEach((table, i) => {
      alarm(
        `TableThrottles${i}`,
        table.metricThrottledRequestsForOperations({ operations: OPERATIONS, period }),
        1,
        'DynamoDB throttled requests: callers got 503 and must retry.',
      )
      alarm(
        `TableSystemErrors${i}`,
        table.metricSystemErrorsForOperations({ operations: OPERATIONS, period }),
        1,
        'DynamoDB returned system errors (HTTP 500).',
      )
    })

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
