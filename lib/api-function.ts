import { type Duration, RemovalPolicy } from 'aws-cdk-lib'
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam'
import { Architecture, type CfnFunction, Runtime } from 'aws-cdk-lib/aws-lambda'
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs'
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import { functionBundles } from './function-bundles'
import { NODE_OPTIONS } from './function-bundling'

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
}

/**
 * One route's Lambda function: Node.js 24 on arm64, ESM bundle, its own log group with a
 * retention, and a role that can write to that log group and nothing else until the stack grants
 * it exact DynamoDB actions.
 */
export class ApiFunction extends Construct {
  readonly fn: NodejsFunction
  readonly role: Role
  readonly logGroup: LogGroup

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id)
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    })
    // No AWSLambdaBasicExecutionRole: it allows writing to every log group in the account.
    this.role = new Role(this, 'Role', {
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
