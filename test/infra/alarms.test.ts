import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CONSUMERS, type ConsumerSpec } from '../../functions/consumers'
import { ROUTES, type Route } from '../../functions/routes'
import { deployedIndexes, TABLES } from '../../functions/table-schema'
import { TRANSACTION_CONFLICT_THRESHOLD } from '../../lib/service-alarms'
import { functionsAlarmed, logicalIdOfTable, mathOf } from '../support/alarm-template'
import {
  type CfnResource,
  type CfnTemplate,
  CONTEXTS,
  PROJECT_ROOT,
  resourcesOfType,
  synth,
} from '../support/synth'

// The contexts test/infra/stack.test.ts synthesizes too (its plain deploy, its dev stage and its
// stage that keeps the legacy indexes): the run's synth cache makes each once for both.
const prod = synth()
const dev = synth(CONTEXTS.dev)
const legacy = synth(CONTEXTS.legacy)

describe('alarms', () => {
  type AlarmProps = {
    MetricName?: string
    Namespace?: string
    ExtendedStatistic?: string
    Metrics?: {
      Expression?: string
      MetricStat?: { Metric: { MetricName: string; Namespace: string } }
    }[]
    AlarmActions?: unknown[]
    Threshold: number
  }
  const alarms = (t: CfnTemplate) =>
    resourcesOfType(t, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties as AlarmProps)
  const metricsOf = (a: AlarmProps) =>
    a.MetricName
      ? [`${a.Namespace}/${a.MetricName}`]
      : (a.Metrics ?? []).flatMap((m) =>
          m.MetricStat
            ? [`${m.MetricStat.Metric.Namespace}/${m.MetricStat.Metric.MetricName}`]
            : [],
        )

  it('sit in one nested stack: the parent holds no alarm and no alarm topic, one AWS::CloudFormation::Stack for them all', () => {
    for (const { json, alarms: nested, alarmsTemplate } of [prod, dev]) {
      expect(resourcesOfType(json, 'AWS::CloudWatch::Alarm')).toEqual([])
      expect(
        resourcesOfType(json, 'AWS::SNS::Subscription').map(([, s]) => s.Properties.Protocol),
      ).not.toContain('email')
      const holders = resourcesOfType(json, 'AWS::CloudFormation::Stack')
      expect(holders.map(([id]) => id)).toEqual([expect.stringMatching(/^AlarmsStackNestedStack/)])
      // Every parameter the nested template declares is passed by the parent, and is a Ref or a
      // GetAtt of one of its resources (a function, table, queue or the API: what an alarm names).
      const passed = (holders[0] as [string, CfnResource])[1].Properties.Parameters as Record<
        string,
        { Ref?: string; 'Fn::GetAtt'?: [string, string] }
      >
      const raw = alarmsTemplate.toJSON() as CfnTemplate
      expect(Object.keys(passed).sort()).toEqual(Object.keys(raw.Parameters ?? {}).sort())
      for (const value of Object.values(passed)) {
        const target = value.Ref ?? value['Fn::GetAtt']?.[0]
        expect([
          'AWS::Lambda::Function',
          'AWS::DynamoDB::Table',
          'AWS::SQS::Queue',
          'AWS::ApiGatewayV2::Api',
        ]).toContain(json.Resources[target ?? '']?.Type)
      }
      // Nothing but alarms, and the topic with its policy and subscription when there is an e-mail.
      expect([...new Set(Object.values(nested.Resources).map((r) => r.Type))].sort()).toEqual(
        json === prod.json
          ? ['AWS::CloudWatch::Alarm']
          : [
              'AWS::CloudWatch::Alarm',
              'AWS::SNS::Subscription',
              'AWS::SNS::Topic',
              'AWS::SNS::TopicPolicy',
            ],
      )
    }
  })

  it('watches 5xx rate, p99 latency, Lambda errors and throttles, DynamoDB throttles and system errors', () => {
    const all = alarms(prod.alarms)
    const watched = all.flatMap(metricsOf)
    // A period with requests and no 5xx datapoint is 0 %, not "no data".
    expect(
      all.find((a) =>
        a.Metrics?.some(
          (m) => m.Expression === 'IF(requests > 0, 100 * FILL(errors, 0) / requests, 0)',
        ),
      ),
    ).toBeDefined()
    expect(watched).toEqual(
      expect.arrayContaining([
        'AWS/ApiGateway/5xx',
        'AWS/ApiGateway/Count',
        'AWS/ApiGateway/Latency',
      ]),
    )
    expect(all.find((a) => a.MetricName === 'Latency')?.ExtendedStatistic).toBe('p99')
    // One per route's function, each consumer of functions/consumers.ts and Cognito's trigger.
    const functions = ROUTES.length + CONSUMERS.length + 1
    expect(watched.filter((m) => m === 'AWS/Lambda/Errors')).toHaveLength(functions)
    expect(watched.filter((m) => m === 'AWS/Lambda/Throttles')).toHaveLength(functions)
    // Per table and per operation the functions use.
    expect(
      watched.filter((m) => m === 'AWS/DynamoDB/ThrottledRequests').length,
    ).toBeGreaterThanOrEqual(3 * 5)
    expect(watched.filter((m) => m === 'AWS/DynamoDB/SystemErrors').length).toBeGreaterThanOrEqual(
      3 * 5,
    )
  })

  it('alarms once per function on its errors and its throttles together, either one firing it', () => {
    type MathAlarm = {
      Metrics: {
        Id: string
        Expression?: string
        ReturnData?: boolean
        MetricStat?: {
          Metric: {
            MetricName: string
            Namespace: string
            Dimensions: { Name: string; Value: unknown }[]
          }
          Period: number
          Stat: string
        }
      }[]
      Threshold: number
      ComparisonOperator: string
      EvaluationPeriods: number
      TreatMissingData: string
    }
    const all = resourcesOfType(prod.alarms, 'AWS::CloudWatch::Alarm')
    // Cognito's CustomMessage trigger too: if it fails, no invitation e-mail goes out.
    const fnIds = [...ROUTES.map((r) => r.id), ...CONSUMERS.map((c) => c.id), 'CustomMessage']
    for (const id of fnIds) {
      const found = all.filter(([, a]) =>
        JSON.stringify(a.Properties.Metrics ?? []).includes(
          JSON.stringify({ Name: 'FunctionName', Value: { Ref: `${id}Function` } }),
        ),
      )
      // Exactly one alarm names the function (the stream reader has its iterator age's too).
      const pair = found.filter(([alarmId]) => alarmId.startsWith(`Alarms${id}ErrorsOrThrottles`))
      expect({ id, alarms: pair.length }).toEqual({ id, alarms: 1 })
      const props = (pair[0] as [string, CfnResource])[1].Properties as unknown as MathAlarm
      const expression = props.Metrics.find((m) => m.ReturnData !== false && m.Expression)
      const stats = Object.fromEntries(
        props.Metrics.filter((m) => m.MetricStat).map((m) => [
          m.Id,
          {
            metric: `${m.MetricStat?.Metric.Namespace}/${m.MetricStat?.Metric.MetricName}`,
            stat: m.MetricStat?.Stat,
            period: m.MetricStat?.Period,
            dimensions: m.MetricStat?.Metric.Dimensions,
          },
        ]),
      )
      const dimensions = [{ Name: 'FunctionName', Value: { Ref: `${id}Function` } }]
      expect(stats).toEqual({
        errors: { metric: 'AWS/Lambda/Errors', stat: 'Sum', period: 300, dimensions },
        throttles: { metric: 'AWS/Lambda/Throttles', stat: 'Sum', period: 300, dimensions },
      })
      // A missing term (no Errors while every call is throttled) counts as 0, not as no data.
      expect(expression?.Expression).toBe('FILL(errors, 0) + FILL(throttles, 0)')
      expect(props).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      })
    }
  })

  const tableAlarms = (t: CfnTemplate) =>
    resourcesOfType(t, 'AWS::CloudWatch::Alarm').map(([id, a]) => ({
      id,
      props: a.Properties as AlarmProps & {
        Dimensions?: { Name: string; Value: unknown }[]
        EvaluationPeriods: number
      },
    }))
  const tableOfAlarm = (props: { Dimensions?: { Name: string; Value: unknown }[] }) =>
    (props.Dimensions ?? []).find((d) => d.Name === 'TableName')?.Value
  const dimensionsOf = (a: AlarmProps & { Dimensions?: { Name: string; Value: unknown }[] }) => [
    ...(a.Dimensions ?? []),
    ...(a.Metrics ?? []).flatMap(
      (m) =>
        (m.MetricStat?.Metric as { Dimensions?: { Name: string; Value: unknown }[] } | undefined)
          ?.Dimensions ?? [],
    ),
  ]

  it('alarms on sustained TransactionConflict for each table a grant transaction holds', () => {
    const conflicts = tableAlarms(prod.alarms).filter(
      (a) => a.props.MetricName === 'TransactionConflict',
    )
    expect(
      conflicts
        .map((a) => tableOfAlarm(a.props))
        .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    ).toEqual(
      (['apiKeys', 'grants', 'programs'] as const)
        .map((table) => ({ Ref: logicalIdOfTable(prod.json, table) }))
        .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    )
    for (const { props } of conflicts) {
      expect(props).toMatchObject({
        Namespace: 'AWS/DynamoDB',
        Threshold: TRANSACTION_CONFLICT_THRESHOLD,
        EvaluationPeriods: 3,
      })
    }
  })

  it('alarms on throttles and system errors of every operation the routes and the worker may call, per table', () => {
    // What each IAM action lets a function call (developer guide, "Using IAM policies with
    // DynamoDB transactions": a transaction is authorised item by item, so PutItem, UpdateItem,
    // DeleteItem and ConditionCheckItem allow TransactWriteItems, GetItem allows TransactGetItems).
    const callable: Record<string, string[]> = {
      GetItem: ['GetItem', 'TransactGetItems'],
      BatchGetItem: ['BatchGetItem'],
      Query: ['Query'],
      Scan: ['Scan'],
      PutItem: ['PutItem', 'TransactWriteItems'],
      UpdateItem: ['UpdateItem', 'TransactWriteItems'],
      DeleteItem: ['DeleteItem', 'TransactWriteItems'],
      ConditionCheckItem: ['TransactWriteItems'],
      BatchWriteItem: ['BatchWriteItem'],
    }
    const declared = [...(ROUTES as readonly Route[]), ...(CONSUMERS as readonly ConsumerSpec[])]
    const expected = (table: keyof typeof TABLES) =>
      [
        ...new Set(
          declared.flatMap((d) =>
            [...(d.access[table] ?? []), ...Object.values(d.indexes?.[table] ?? {}).flat()].flatMap(
              (action) => {
                const operations = callable[action.replace('dynamodb:', '')]
                if (!operations) throw new Error(`the test does not know ${action}`)
                return operations
              },
            ),
          ),
        ),
      ].sort()
    /** The operations an alarm on `metric` watches for one table. */
    const watchedOps = (table: keyof typeof TABLES, metric: string) => {
      const ref = JSON.stringify({ Ref: logicalIdOfTable(prod.json, table) })
      const found = tableAlarms(prod.alarms).filter(
        ({ props }) =>
          (props.Metrics ?? []).some((m) => m.MetricStat?.Metric.MetricName === metric) &&
          dimensionsOf(props).some((d) => JSON.stringify(d.Value) === ref),
      )
      expect(found).toHaveLength(1)
      return dimensionsOf(found[0]?.props as AlarmProps)
        .filter((d) => d.Name === 'Operation')
        .map((d) => String(d.Value))
        .sort()
    }
    for (const table of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
      if (expected(table).length === 0) continue
      for (const metric of ['ThrottledRequests', 'SystemErrors']) {
        expect({ table, metric, operations: watchedOps(table, metric) }).toEqual({
          table,
          metric,
          operations: expected(table),
        })
      }
    }
    // The operations the earlier alarm list missed, each where the code calls it.
    expect(watchedOps('grants', 'ThrottledRequests')).toEqual(
      expect.arrayContaining(['Query', 'TransactGetItems', 'TransactWriteItems']),
    )
    expect(watchedOps('programs', 'ThrottledRequests')).toEqual(
      expect.arrayContaining(['Query', 'TransactGetItems']),
    )
    expect(watchedOps('memberships', 'SystemErrors')).toEqual(
      expect.arrayContaining(['Query', 'GetItem']),
    )
  })

  it('evaluates as many metrics as docs/deploying.md "Cost" charges for', () => {
    // CloudWatch charges alarms per metric they evaluate: a metric-math alarm per metric in it.
    const metrics = alarms(prod.alarms).reduce(
      (sum, a) => sum + (a.MetricName ? 1 : (a.Metrics ?? []).filter((m) => m.MetricStat).length),
      0,
    )
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'deploying.md'), 'utf8')
    const cost = page.split('\n## Cost\n')[1]?.split('\n## ')[0] ?? ''
    const stated = cost.match(
      /charged per metric they evaluate \(\$0\.10\s+each per month\): (\d+) here/,
    )
    expect(Number(stated?.[1])).toBe(metrics)
  })

  it('sets throttle alarms on exactly the tables some function touches', () => {
    const touched = (Object.keys(TABLES) as (keyof typeof TABLES)[]).filter((table) =>
      [...(ROUTES as readonly Route[]), ...(CONSUMERS as readonly ConsumerSpec[])].some(
        (route) =>
          (route.access[table] ?? []).length > 0 ||
          Object.keys(route.indexes?.[table] ?? {}).length > 0,
      ),
    )
    for (const table of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
      const ref = { Ref: logicalIdOfTable(prod.json, table) }
      const alarmed = tableAlarms(prod.alarms).some(({ props }) =>
        dimensionsOf(props).some((d) => JSON.stringify(d.Value) === JSON.stringify(ref)),
      )
      expect({ table, alarmed }).toEqual({ table, alarmed: touched.includes(table) })
    }
  })

  it('names alarms after what they watch, not after positions in a list', () => {
    const ids = resourcesOfType(prod.alarms, 'AWS::CloudWatch::Alarm').map(([id]) => id)
    for (const route of ROUTES) {
      expect(ids.some((id) => id.startsWith(`Alarms${route.id}ErrorsOrThrottles`))).toBe(true)
    }
    expect(
      ids.some((id) => /Alarms(Function|Table)\w*\d/.test(id.replace(/[A-F0-9]{8}$/, ''))),
    ).toBe(false)
  })

  it('notifies an SNS e-mail subscription only when alarmEmail is given', () => {
    // The SES events' topic (test/infra/grant-pipeline.test.ts) is not the alarms'.
    const alarmTopics = (template: CfnTemplate) =>
      resourcesOfType(template, 'AWS::SNS::Topic').filter(([id]) => id.startsWith('Alarms'))
    expect(alarmTopics(prod.alarms)).toHaveLength(0)
    expect(alarms(prod.alarms).every((a) => a.AlarmActions === undefined)).toBe(true)
    const topics = alarmTopics(dev.alarms).map(([id]) => id)
    expect(topics).toHaveLength(1)
    const topicId = topics[0]
    dev.alarmsTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    })
    expect(
      alarms(dev.alarms).every(
        (a) => JSON.stringify(a.AlarmActions) === JSON.stringify([{ Ref: topicId }]),
      ),
    ).toBe(true)
  })
})

describe('alarms that miss nothing', () => {
  it('sums every count with FILL, so a term with no datapoint leaves no sum missing', () => {
    for (const t of [prod.alarms, legacy.alarms]) {
      const sums = resourcesOfType(t, 'AWS::CloudWatch::Alarm').flatMap(([id, a]) => {
        const { expression, stats } = mathOf(a)
        return expression?.includes('+') ? [{ id, expression, ids: Object.keys(stats) }] : []
      })
      for (const { id, expression, ids } of sums) {
        expect({ id, terms: expression.split(' + ').sort() }).toEqual({
          id,
          terms: ids.map((metric) => `FILL(${metric}, 0)`).sort(),
        })
      }
      // Every per-operation sum of DynamoDB's counts is among them, as is every function's.
      const summed = sums.map(({ id }) => id.replace(/[0-9A-F]{8}$/, ''))
      for (const table of ['grants', 'programs', 'apiKeys', 'timers'] as const) {
        expect(summed).toEqual(
          expect.arrayContaining([
            `Alarms${table}TableThrottles`,
            `Alarms${table}TableSystemErrors`,
            `Alarms${table}TableThrottleEvents`,
          ]),
        )
      }
      expect(summed).toEqual(expect.arrayContaining(['AlarmsGrantTokensErrorsOrThrottles']))
    }
  })

  it('alarms on read and write throttle events of every alarmed table and each of its indexes (a batch is throttled item by item)', () => {
    for (const [s, keepLegacy] of [
      [prod, false],
      [legacy, true],
    ] as const) {
      const all = resourcesOfType(s.alarms, 'AWS::CloudWatch::Alarm')
      const tables = all.flatMap(
        ([id]) => /^Alarms(\w+)TableThrottles[0-9A-F]{8}$/.exec(id)?.[1] ?? [],
      )
      expect(tables).toEqual(expect.arrayContaining(['grants', 'timers']))
      for (const table of tables as (keyof typeof TABLES)[]) {
        const found = all.filter(([id]) =>
          new RegExp(`^Alarms${table}TableThrottleEvents[0-9A-F]{8}$`).test(id),
        )
        expect({ table, alarms: found.length }).toEqual({ table, alarms: 1 })
        const [, alarm] = found[0] as [string, CfnResource]
        const tableRef = { Ref: logicalIdOfTable(s.json, table) }
        const watched = Object.values(mathOf(alarm).stats).map((stat) => {
          const dimensions = stat.Metric.Dimensions ?? []
          expect(dimensions.find((d) => d.Name === 'TableName')?.Value).toEqual(tableRef)
          const index = dimensions.find((d) => d.Name === 'GlobalSecondaryIndexName')?.Value
          expect(dimensions).toHaveLength(index === undefined ? 1 : 2)
          return `${stat.Metric.Namespace}/${stat.Metric.MetricName} ${index ?? '(table)'} ${stat.Stat} ${stat.Period}`
        })
        const expected = ['ReadThrottleEvents', 'WriteThrottleEvents'].flatMap((metric) =>
          ['(table)', ...deployedIndexes(table, { keepLegacy }).map((i) => i.indexName)].map(
            (on) => `AWS/DynamoDB/${metric} ${on} Sum 300`,
          ),
        )
        expect({ table, watched: watched.sort() }).toEqual({ table, watched: expected.sort() })
        expect(alarm.Properties).toMatchObject({
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        })
      }
    }
  })

  it("alarms on every function of the stack, Cognito's CustomMessage trigger included", () => {
    for (const s of [prod, dev]) {
      // Ours all have a logical id `<name>Function`; CDK's own custom-resource handlers (the
      // console's bucket deployment, an ephemeral bucket's auto-delete) are not the service's.
      const functions = resourcesOfType(s.json, 'AWS::Lambda::Function')
        .map(([id]) => id)
        .filter((id) => id.endsWith('Function'))
        .map((id) => id.replace(/Function$/, ''))
      expect(functions).toContain('CustomMessage')
      expect(functionsAlarmed(s.alarms)).toEqual(functions.sort())
    }
  })

  it('lets Lambda retry a failed asynchronous call only where the list says so: never the sweep, whose next run does the same work', () => {
    type Async = { id: string; retries: number; maxAge?: number }
    const asynchronous = (CONSUMERS as readonly ConsumerSpec[]).flatMap((spec): Async[] =>
      spec.trigger.kind === 'schedule'
        ? [{ id: spec.id, retries: 0, maxAge: spec.trigger.periodSeconds }]
        : spec.trigger.kind === 'topic'
          ? [{ id: spec.id, retries: spec.trigger.retryAttempts }]
          : [],
    )
    expect(asynchronous.map((a) => a.id)).toContain('OfferSweep')
    for (const { id, retries, maxAge } of asynchronous) {
      const configs = resourcesOfType(prod.json, 'AWS::Lambda::EventInvokeConfig')
        .map(([, c]) => c.Properties)
        .filter((p) => JSON.stringify(p.FunctionName) === JSON.stringify({ Ref: `${id}Function` }))
      expect({ id, configs: configs.length }).toEqual({ id, configs: 1 })
      expect(configs[0]).toMatchObject({
        Qualifier: '$LATEST',
        MaximumRetryAttempts: retries,
        ...(maxAge === undefined ? {} : { MaximumEventAgeInSeconds: maxAge }),
      })
    }
  })
})
