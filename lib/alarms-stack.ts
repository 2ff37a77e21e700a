import { NestedStack } from 'aws-cdk-lib'
import type { Construct } from 'constructs'
import { ServiceAlarms, type ServiceAlarmsProps } from './service-alarms'

/**
 * Every alarm of the service, and the alarm topic with its e-mail subscription, in a nested stack
 * of the service's stack: the parent holds one AWS::CloudFormation::Stack resource for all of
 * them, so an alarm added with a function, a queue or a table costs the parent's 500 resources
 * nothing (docs/decisions/nested-alarms.md). CDK passes what the alarms name (function, table and
 * queue names, the API's id) as the nested stack's parameters; a nested template may take 200.
 */
export class AlarmsStack extends NestedStack {
  readonly serviceAlarms: ServiceAlarms

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps & { stackName: string }) {
    const { stackName, ...alarmProps } = props
    super(scope, id, { description: `Alarms of ${stackName} (virtual-share grant service)` })
    // Construct id `Alarms`, as when the alarms sat in the parent: their logical ids inside the
    // nested template read as before (`Alarms<Function>ErrorsOrThrottles...`).
    this.serviceAlarms = new ServiceAlarms(this, 'Alarms', alarmProps)
  }
}

/** CloudFormation's limit on one template's parameters (the nested template's included). */
export const TEMPLATE_PARAMETER_LIMIT = 200
