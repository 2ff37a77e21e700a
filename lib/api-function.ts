import { type Duration, RemovalPolicy } from 'aws-cdk-lib'
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam'
import { Architecture, type CfnFunction, Runtime } from 'aws-cdk-lib/aws-lambda'
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs'
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import { functionBundles } from './function-bundles'
import { NODE_OPTIONS } from './function-bundling'
import { InlinePolicyRole } from './inline-policy-role'

export type ApiFunctionProps = {
  projectRoot: string
  /** Handler module, relative to the project root (from functions/routes.ts). */
  entry: string
  environment: Record<string, string>
  memorySize: number
  timeout: Duration
  logRetention: RetentionDays
  /** Ephemeral stages drop their logs with the stack; others keep them. */
  ephemeral: boolean
  logLevel: string
  serviceName: string
  /** Fixed CloudFormation logical id, so `sam local invoke <id>` commands stay the same. */
  logicalId: string
  /**
   * The log group this function shares with the others of its group (lib/function-logs.ts);
   * without it, the function gets a group of its own.
   */
  logGroup?: LogGroup
}

/**
 * One route's Lambda function: Node.js 24 on arm64, ESM bundle, its group's log group (streams
 * named by function) with a retention, and a role whose one inline policy can write to that log
 * group and nothing else until the stack grants it exact DynamoDB actions.
 */
export class ApiFunction extends Construct {
  readonly fn: NodejsFunction
  readonly role: InlinePolicyRole
  readonly logGroup: LogGroup

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id)
    this.logGroup =
      props.logGroup ??
      new LogGroup(this, 'Logs', {
        retention: props.logRetention,
        removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      })
    // No AWSLambdaBasicExecutionRole: it allows writing to every log group in the account.
    this.role = new InlinePolicyRole(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.entry}`,
    })
    this.logGroup.grantWrite(this.role)
    this.fn = new NodejsFunction(this, 'Function', {
      // The bundle from the stack's one esbuild build (lib/function-bundles.ts), where
      // NodejsFunction would run esbuild for this function alone: the same files.
      code: functionBundles(this, props.projectRoot).code(props.entry),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        NODE_OPTIONS,
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_LOG_LEVEL: props.logLevel,
      },
    })
    this.fn.node.addDependency(this.logGroup)
    ;(this.fn.node.defaultChild as CfnFunction).overrideLogicalId(props.logicalId)
  }
}

/**
 * A log group for a group of functions (Lambda names each stream `date/<function name>[version]
 * [instance]` in a custom group, so one function's lines stay apart from another's): one resource
 * where a group of its own for each function cost one a function (docs/decisions/stack-room.md).
 */
export const sharedLogGroup = (
  scope: Construct,
  id: string,
  props: Pick<ApiFunctionProps, 'logRetention' | 'ephemeral'>,
) =>
  new LogGroup(scope, id, {
    retention: props.logRetention,
    removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  })
