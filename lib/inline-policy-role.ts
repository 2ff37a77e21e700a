import {
  type AddToPrincipalPolicyResult,
  PolicyDocument,
  type PolicyStatement,
  Role,
  type RoleProps,
} from 'aws-cdk-lib/aws-iam'
import type { Construct } from 'constructs'

/** The name of the one inline policy every statement goes to. */
export const INLINE_POLICY_NAME = 'Access'

/**
 * A role whose every statement, however it is granted (addToPolicy, a grant method, an event
 * source), is written into the role's own inline policy (`Policies` of AWS::IAM::Role), where a
 * plain Role makes a separate AWS::IAM::Policy resource: the same permissions, the same IAM size
 * limit (both are inline policies of the role), one resource a function fewer in the stack.
 */
export class InlinePolicyRole extends Role {
  private readonly document: PolicyDocument

  constructor(scope: Construct, id: string, props: Omit<RoleProps, 'inlinePolicies'>) {
    // The document resolves at synthesis, so statements added after construction are in it.
    const document = new PolicyDocument()
    super(scope, id, { ...props, inlinePolicies: { [INLINE_POLICY_NAME]: document } })
    this.document = document
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.document.addStatements(statement)
    // What waits for the permission (an event source mapping) waits for the role that holds it.
    return { statementAdded: true, policyDependable: this }
  }
}
