import type { TABLES } from '../../functions/table-schema'
import { type CfnResource, type CfnTemplate, resourcesOfType } from './synth'

/** What test/infra/alarms.test.ts and alarm-docs.test.ts read of the alarms' templates. */

export const logicalIdOfTable = (template: CfnTemplate, key: keyof typeof TABLES) => {
  const match = resourcesOfType(template, 'AWS::DynamoDB::Table').find(([id]) =>
    id.startsWith(`Tables${key[0]?.toUpperCase()}${key.slice(1)}`),
  )
  if (!match) throw new Error(`no table ${key}`)
  return match[0]
}

type MetricStat = {
  Metric: {
    MetricName: string
    Namespace: string
    Dimensions?: { Name: string; Value: unknown }[]
  }
  Period: number
  Stat: string
}
type MathMetric = { Id: string; Expression?: string; ReturnData?: boolean; MetricStat?: MetricStat }
/** An alarm's metric math: its expression and its metrics by id. */
export const mathOf = (alarm: CfnResource) => {
  const metrics = (alarm.Properties.Metrics ?? []) as MathMetric[]
  return {
    expression: metrics.find((m) => m.Expression && m.ReturnData !== false)?.Expression,
    stats: Object.fromEntries(
      metrics.flatMap((m) => (m.MetricStat ? [[m.Id, m.MetricStat] as const] : [])),
    ),
  }
}
/** The functions the template runs from something other than a request: its consumers. */
export const consumersIn = (t: CfnTemplate) => {
  const idOf = (ref: unknown) => {
    const value = ref as { Ref?: string; 'Fn::GetAtt'?: [string, string] }
    return value.Ref ?? value['Fn::GetAtt']?.[0]
  }
  const ids = [
    ...resourcesOfType(t, 'AWS::Lambda::EventSourceMapping').map(([, m]) =>
      idOf(m.Properties.FunctionName),
    ),
    ...resourcesOfType(t, 'AWS::SNS::Subscription')
      .filter(([, s]) => s.Properties.Protocol === 'lambda')
      .map(([, s]) => idOf(s.Properties.Endpoint)),
    ...resourcesOfType(t, 'AWS::Events::Rule').flatMap(([, r]) =>
      (r.Properties.Targets as { Arn: unknown }[]).map((target) => idOf(target.Arn)),
    ),
  ]
  return [...new Set(ids.map((id) => String(id).replace(/Function$/, '')))].sort()
}
/** The alarm topic's logical id in the nested alarms stack (the SES events' topic is another). */
export const alarmTopic = (t: CfnTemplate) => {
  const topics = resourcesOfType(t, 'AWS::SNS::Topic').filter(([id]) => id.startsWith('Alarms'))
  const [only] = topics
  if (!only || topics.length > 1) throw new Error(`${topics.length} alarm topics, not one`)
  return only[0]
}
/** The functions an ErrorsOrThrottles alarm watches, by their logical id less `Function`. */
export const functionsAlarmed = (t: CfnTemplate) =>
  resourcesOfType(t, 'AWS::CloudWatch::Alarm')
    .filter(([id]) => /^Alarms\w+ErrorsOrThrottles[0-9A-F]{8}$/.test(id))
    .map(([, a]) => {
      const ref = mathOf(a).stats.errors?.Metric.Dimensions?.find((d) => d.Name === 'FunctionName')
      return String((ref?.Value as { Ref?: string } | undefined)?.Ref).replace(/Function$/, '')
    })
    .sort()
