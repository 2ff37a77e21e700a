import { REQUEST_LOG_DEAD_LETTERS, REQUEST_LOG_FILTER_PATTERN } from '../../functions/consumers'
import { GRANT_API_ROUTES } from '../../functions/routes/grant-api'
import { alarmTopic, logicalIdOfTable, mathOf } from '../support/alarm-template'
import * as cfn from '../support/synth'

/**
 * The request log in the template (issue 33): a CloudWatch Logs subscription on exactly the
 * integrator routes' log group(s), for the request lines only, to the RequestLog function, which
 * may BatchWriteItem on `requests` and nothing else of DynamoDB; its failures reach a person.
 */

// The same contexts as test/infra/stack.test.ts: the run's synth cache makes each once.
const prod = cfn.synth()
const dev = cfn.synth(cfn.CONTEXTS.dev)
const { resource, resourcesOfType } = cfn
type CfnResource = cfn.CfnResource

const FN = 'RequestLogFunction'
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] })
const refOf = (value: unknown) =>
  (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: [string] })['Fn::GetAtt']?.[0]

/** The log group each integrator route's function writes to, by logical id. */
const integratorLogGroups = (t: typeof prod.json) =>
  [
    ...new Set(
      GRANT_API_ROUTES.map((route) =>
        refOf(
          (resource(t, `${route.id}Function`).Properties.LoggingConfig as { LogGroup: unknown })
            .LogGroup,
        ),
      ),
    ),
  ].sort()

describe('the request log subscription', () => {
  it('exists for exactly the integrator routes’ log groups, with the request lines’ pattern, to RequestLog', () => {
    for (const { json } of [prod, dev]) {
      const groups = integratorLogGroups(json)
      expect(groups.length).toBeGreaterThan(0)
      const filters = resourcesOfType(json, 'AWS::Logs::SubscriptionFilter').map(([, f]) => f)
      expect(filters.map((f) => refOf(f.Properties.LogGroupName)).sort()).toEqual(groups)
      for (const filter of filters) {
        expect(filter.Properties.FilterPattern).toBe(REQUEST_LOG_FILTER_PATTERN)
        expect(filter.Properties.DestinationArn).toEqual(getAtt(FN, 'Arn'))
      }
      // No other function logs there: the management routes and the consumers have their own.
      const others = resourcesOfType(json, 'AWS::Lambda::Function').filter(
        ([id, f]) =>
          !GRANT_API_ROUTES.some((r) => `${r.id}Function` === id) &&
          groups.includes(
            refOf(
              (f.Properties.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup ?? {},
            ) ?? '',
          ),
      )
      // The recipients' routes and the not-found one share the grant API's group; the pattern
      // keeps their lines out (they log no request log entry).
      expect(others.map(([id]) => id).every((id) => /^(Recipient|NotFound)/.test(id))).toBe(true)
    }
  })

  it('lets logs.amazonaws.com invoke RequestLog from those log groups only', () => {
    const t = prod.json
    const permissions = resourcesOfType(t, 'AWS::Lambda::Permission')
      .map(([, p]) => p.Properties)
      .filter((p) => p.Principal === 'logs.amazonaws.com')
    expect(permissions.map((p) => refOf(p.SourceArn)).sort()).toEqual(integratorLogGroups(t))
    for (const p of permissions) {
      expect(p.FunctionName).toEqual(getAtt(FN, 'Arn'))
      expect(p.Action).toBe('lambda:InvokeFunction')
      expect(p.SourceArn).toEqual(getAtt(refOf(p.SourceArn) as string, 'Arn'))
    }
    // Nothing else may invoke it.
    expect(
      resourcesOfType(t, 'AWS::Lambda::Permission').filter(
        ([, p]) => refOf(p.Properties.FunctionName) === FN,
      ),
    ).toHaveLength(permissions.length)
  })

  it('gives the writer exactly BatchWriteItem on requests (no other DynamoDB action or table), its log group and its dead letters', () => {
    const t = prod.json
    const roleId = refOf(resource(t, FN).Properties.Role) as string
    const grants = cfn
      .grantsOfRole(t, roleId)
      .map(({ action, resource: r }) => `${action} ${refOf(r)}`)
    const logGroup = refOf(
      (resource(t, FN).Properties.LoggingConfig as { LogGroup: unknown }).LogGroup,
    )
    const deadLetters = resourcesOfType(t, 'AWS::SQS::Queue').find(([id]) =>
      id.startsWith(`Pipeline${REQUEST_LOG_DEAD_LETTERS}`),
    )?.[0]
    // Each resource with exactly its actions. On the dead letters: what Lambda's on-failure
    // destination needs (CDK's SqsDestination grants SendMessage with the two reads beside it).
    const allowed: Record<string, string[]> = {
      [logicalIdOfTable(t, 'requests')]: ['dynamodb:BatchWriteItem'],
      [String(logGroup)]: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      [String(deadLetters)]: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
    }
    expect(grants.sort()).toEqual(
      Object.entries(allowed)
        .flatMap(([target, actions]) => actions.map((action) => `${action} ${target}`))
        .sort(),
    )
  })

  it('retries a failed delivery twice, then keeps it in its dead letters', () => {
    const t = prod.json
    const [[, config]] = resourcesOfType(t, 'AWS::Lambda::EventInvokeConfig').filter(
      ([, c]) => refOf(c.Properties.FunctionName) === FN,
    ) as [[string, CfnResource]]
    expect(config.Properties.MaximumRetryAttempts).toBe(2)
    const destination = (
      config.Properties.DestinationConfig as { OnFailure: { Destination: unknown } }
    ).OnFailure.Destination
    expect(refOf(destination)).toMatch(new RegExp(`^Pipeline${REQUEST_LOG_DEAD_LETTERS}`))
  })

  it('alarms on its errors and throttles and on its dead letters, both to the alarm topic', () => {
    const t = dev.alarms
    const topic = alarmTopic(t)
    const alarmsOf = resourcesOfType(t, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties)
    const onFunction = alarmsOf.filter(
      (a) =>
        refOf(
          mathOf({ Properties: a } as CfnResource).stats.errors?.Metric.Dimensions?.find(
            (d) => d.Name === 'FunctionName',
          )?.Value ?? {},
        ) === FN,
    )
    const onDeadLetters = alarmsOf.filter((a) =>
      ((a.Dimensions ?? []) as { Value: unknown }[]).some((d) =>
        String(refOf(d.Value)).startsWith(`Pipeline${REQUEST_LOG_DEAD_LETTERS}`),
      ),
    )
    expect([onFunction.length, onDeadLetters.length]).toEqual([1, 1])
    for (const alarm of [...onFunction, ...onDeadLetters]) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topic }])
    }
  })
})
