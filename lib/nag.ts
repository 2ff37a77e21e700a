import { Annotations } from 'aws-cdk-lib'
import { AwsSolutionsChecks } from 'cdk-nag'
import type { IConstruct } from 'constructs'

/**
 * Runs cdk-nag's AwsSolutions pack over a construct tree and turns each finding into a CDK
 * annotation, so `cdk synth` fails on an unacknowledged error. (cdk-nag 3 hooks into CDK's
 * policy-validation plugins, which this aws-cdk-lib does not yet call; validateScope does the
 * same check directly.) Findings are acknowledged next to the resource, with a reason.
 */
export const checkAwsSolutions = (scope: IConstruct) => {
  const report = new AwsSolutionsChecks().validateScope(scope)
  const byPath = new Map(scope.node.findAll().map((node) => [node.node.path, node]))
  for (const violation of report.violations) {
    for (const resource of violation.violatingResources) {
      const node = byPath.get(resource.constructPath ?? '') ?? scope
      const message = `${violation.ruleName}: ${violation.description} (${resource.constructPath})`
      if (violation.severity === 'error') Annotations.of(node).addError(message)
      else Annotations.of(node).addWarningV2(violation.ruleName, message)
    }
  }
  return report
}
