import { join } from 'node:path'
import {
  Aws,
  CfnOutput,
  Fn,
  Lazy,
  RemovalPolicy,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib'
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway'
import {
  type CfnStage,
  HttpApi,
  type HttpMethod,
  type HttpRoute,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2'
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers'
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import { LogGroup } from 'aws-cdk-lib/aws-logs'
import type { Construct } from 'constructs'
import {
  CONSUMERS,
  type ConsumerId,
  type ConsumerSpec,
  QUEUES,
  type QueueId,
} from '../functions/consumers'
import { ENV, TABLE_ENV } from '../functions/env-names'
import { ROUTES, type Route, type RouteId, USER_SCOPE } from '../functions/routes'
import { GRANT_API_ROUTES } from '../functions/routes/grant-api'
import {
  GRANT_LIST_INDEX_OUTPUT,
  type GrantListIndex,
  INDEX,
  type TableKey,
  tableOutputKey,
} from '../functions/table-schema'
import { AlarmsStack } from './alarms-stack'
import type { ApiFunction } from './api-function'
import { ConsoleHosting } from './console-hosting'
import { bucketRegionalOrigin } from './console-site'
import { declareFunctionEntries } from './function-bundles'
import { GrantPipeline, QUEUE_MAX_AGE_SECONDS, STREAM_MAX_ITERATOR_AGE_MS } from './grant-pipeline'
import { GrantTables } from './grant-tables'
import { CUSTOM_MESSAGE_ENTRY, Identity } from './identity'
import { type ManageFunctionsStack, routeFunctions } from './route-functions'
import type { StageConfig } from './stage-config'
import { UploadBucket, uploadBucketName } from './upload-bucket'
import { WebhookSecretsKey } from './webhook-secrets-key'

export type GrantServiceStackProps = StackProps &
  StageConfig & {
    /** Absolute path of the project (where package-lock.json is). */
    projectRoot: string
    /** The built console to deploy. Default: `console/dist` of the project. */
    consoleDistDir?: string
  }

export const SERVICE_NAME = 'virtual-share-grants'

export class GrantServiceStack extends Stack {
  readonly api: HttpApi
  readonly tables: GrantTables
  readonly functions: Record<RouteId, ApiFunction>
  readonly identity: Identity
  readonly console: ConsoleHosting
  /** Send to many's CSV uploads (presigned POSTs from the console). */
  readonly uploads: UploadBucket
  /** The grants stream's reader, the offer mail queue and its consumer, SES events, the sweep. */
  readonly pipeline: GrantPipeline
  /** The KMS key webhook signing secrets are sealed with. */
  readonly webhookSecrets: WebhookSecretsKey
  /** The nested stack of the management routes' functions and roles (lib/route-functions.ts). */
  readonly manageFunctions: ManageFunctionsStack
  /** The nested stack of every alarm and the alarm topic (lib/alarms-stack.ts). */
  readonly alarms: AlarmsStack

  constructor(scope: Construct, id: string, props: GrantServiceStackProps) {
    super(scope, id, props)
    // Every function's entry up front: the first function CDK bundles builds them all at once.
    declareFunctionEntries(this, props.projectRoot, [
      CUSTOM_MESSAGE_ENTRY,
      ...(ROUTES as readonly Route[]).map((route) => route.entry),
      ...(CONSUMERS as readonly ConsumerSpec[]).map((spec) => spec.entry),
    ])
    this.tables = new GrantTables(this, 'Tables', { ephemeral: props.ephemeral })
    const tableOf = this.tables.byKey
    const environment = {
      ...Object.fromEntries(
        Object.entries(TABLE_ENV).map(([table, name]) => [
          name,
          tableOf[table as keyof typeof TABLE_ENV].tableName,
        ]),
      ),
      // Declared empty so `sam local --env-vars` can point it at DynamoDB Local: SAM only
      // overrides variables the template declares. config.ts treats empty as unset.
      [ENV.dynamodbEndpoint]: '',
    }

    // Who may use the management console: Cognito user pool, app client, invitation e-mails.
    this.identity = new Identity(this, 'Identity', {
      projectRoot: props.projectRoot,
      ephemeral: props.ephemeral,
      logRetention: props.logRetention,
      logLevel: props.logLevel,
      serviceName: SERVICE_NAME,
      // The e-mails link to the console this stack hosts unless -c consoleUrl says otherwise. Lazy:
      // the distribution is made below, after the API the user pool's authorizer protects. No
      // cycle: the distribution needs only the API's id, not its routes or authorizer.
      consoleUrl: props.consoleUrl ?? Lazy.string({ produce: () => this.console.url }),
      ...(props.ses ? { ses: props.ses } : {}),
    })
    // Grant listings read `byProgramSlot`, the one index a new stage has. A stage deployed with
    // `-c keepLegacyIndexes=true` (upgrading from a release that had `byProgram`) reads `byProgram`
    // (it holds every grant; `byProgramSlot` lacks those written before it until
    // `grant backfill-slots` has run), until a deploy without the flag drops it. The functions
    // that list grants (their route's `listsGrants`) are told which (GRANTS_LIST_INDEX) and may
    // Query both meanwhile (grant-listing.dynamodb.ts falls back to `byProgramSlot` when the
    // second deploy deletes `byProgram` before it updates them).
    const grantListIndex: GrantListIndex = this.tables.legacyIndexesDeployed
      ? INDEX.grantsByProgram
      : INDEX.grantsByProgramSlot
    // One function a route; the management routes' in a nested stack (lib/route-functions.ts).
    const routeFns = routeFunctions(this, {
      ...props,
      environment,
      tables: tableOf,
      identity: this.identity,
      grantListIndex,
      serviceName: SERVICE_NAME,
    })
    this.functions = routeFns.functions
    this.manageFunctions = routeFns.manage

    this.api = new HttpApi(this, 'Api', {
      apiName: `virtual-share-grants-${props.stage}`,
      description: `Virtual-share grant API (${props.stage})`,
      createDefaultStage: false,
      // Unknown routes reach the NotFound function, which answers in problem+json.
      defaultIntegration: new HttpLambdaIntegration(
        'NotFoundIntegration',
        this.functions.NotFound.fn,
      ),
    })
    const stage = this.addRoutesAndStage(props)

    // The issuer console: S3 + CloudFront, with /manage/* of this API behind the same origin.
    // Its CSP names the upload bucket's endpoint, from the bucket's fixed name (no cycle: the
    // bucket's CORS rule names the console's origin).
    const uploadBucket = uploadBucketName(this)
    this.console = new ConsoleHosting(this, 'Console', {
      uploadOrigin: bucketRegionalOrigin(uploadBucket, Aws.REGION, Aws.URL_SUFFIX),
      distDir: props.consoleDistDir ?? join(props.projectRoot, 'console', 'dist'),
      api: this.api,
      // The address the console shows integrators: the API's own, not CloudFront's (ApiUrl).
      grantApiUrl: this.api.apiEndpoint,
      userPoolId: this.identity.userPool.userPoolId,
      userPoolClientId: this.identity.userPoolClient.userPoolClientId,
      ephemeral: props.ephemeral,
      logRetention: props.logRetention,
      comment: `Virtual-share issuer console (${props.stage})`,
      ...(props.consoleDomain ? { domain: props.consoleDomain } : {}),
    })

    // Send to many's uploads: POST from the console's origin only; the routes that presign or
    // read them (functions/routes.ts `uploads`) get the bucket's name and exactly that action.
    this.uploads = new UploadBucket(this, 'Uploads', {
      bucketName: uploadBucket,
      consoleOrigin: this.console.origin,
      logBucket: this.console.logBucket,
      ephemeral: props.ephemeral,
    })
    this.routeUploadsAndLinks(uploadBucket)

    // After a grant is stored: the stream's reader, the offer mail, SES events, the sweep
    // (functions/consumers.ts). Their links point at this distribution too.
    this.pipeline = new GrantPipeline(this, 'Pipeline', {
      projectRoot: props.projectRoot,
      tables: tableOf,
      environment,
      recipientOrigin: this.console.origin,
      consoleUrl: props.consoleUrl ?? this.console.url,
      mail: {
        allow: (fn, configurationSet, options) =>
          this.identity.allowOfferMail(fn, configurationSet, options),
      },
      logRetention: props.logRetention,
      ephemeral: props.ephemeral,
      logLevel: props.logLevel,
      serviceName: SERVICE_NAME,
      // The request log's lines (issue 33): the grant API's routes log to one shared group.
      logSources: {
        grantApiRoutes: GRANT_API_ROUTES.map((route) => this.functions[route.id].logGroup),
      },
    })
    this.allowQueueSends()

    // Webhook signing secrets are sealed with one KMS key: the routes and consumers whose spec
    // says `kms` get its ARN and exactly that one action on it (lib/webhook-secrets-key.ts).
    this.webhookSecrets = new WebhookSecretsKey(this, 'WebhookSecrets', {
      ephemeral: props.ephemeral,
      stage: props.stage,
    })
    this.allowWebhookSecrets()

    this.alarms = this.addAlarms(props)
    this.addOutputs(stage, grantListIndex)
    this.acknowledgeReviewedFindings()
  }

  /** Each route on the API (its function, the people's authorizer) and the one stage, logged. */
  private addRoutesAndStage(props: GrantServiceStackProps) {
    // The management routes: a Cognito access token, checked by API Gateway before the function
    // runs (signature, issuer, expiry, audience = the app client). The authorizer does not look at
    // `token_use`, so the routes require the scope only access tokens carry.
    const people = new HttpJwtAuthorizer('PeopleAuthorizer', this.identity.issuerUrl, {
      jwtAudience: [this.identity.userPoolClient.userPoolClientId],
    })
    const httpRoutes: Partial<Record<RouteId, HttpRoute[]>> = {}
    for (const route of ROUTES as readonly Route[]) {
      if (route.routeKey === '$default') continue
      const [method, path] = route.routeKey.split(' ') as [HttpMethod, string]
      httpRoutes[route.id as RouteId] = this.api.addRoutes({
        path,
        methods: [method],
        integration: new HttpLambdaIntegration(
          `${route.id}Integration`,
          this.functions[route.id as RouteId].fn,
        ),
        ...(route.auth === 'user' ? { authorizer: people, authorizationScopes: [USER_SCOPE] } : {}),
      })
      // An integration switched to a new function (docs/deploying.md, "Upgrading a stage: shared
      // log groups...") waits until API Gateway may invoke that function.
      for (const httpRoute of httpRoutes[route.id as RouteId] ?? []) {
        const integration = httpRoute.node.tryFindChild(`${route.id}Integration`)
        const permission = httpRoute.node.tryFindChild(`${route.id}Integration-Permission`)
        if (!integration || !permission)
          throw new Error(`${route.id}: no integration or permission`)
        integration.node.addDependency(permission)
      }
    }

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      // Under /aws/vendedlogs/: otherwise API Gateway adds every stage's log group to the
      // account-wide CloudWatch Logs resource policy, whose 5,120 characters repeated deploys use
      // up. The stack's own id makes the name unique, so a retained group never blocks a redeploy.
      logGroupName: Fn.join('', [
        `/aws/vendedlogs/apigateway/${this.stackName}-`,
        Fn.select(2, Fn.split('/', Aws.STACK_ID)),
      ]),
      retention: props.logRetention,
      removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    })
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      // Every route but the grant route, which has its own below.
      throttle: props.throttling,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // JSON, one line per request, no headers: the API key must never reach a log. The route
        // key (`GET /programs/{programId}/recipients/{email}/balance`), never the path itself: a
        // recipient's e-mail address is a path segment there.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTimeEpoch',
            ip: '$context.identity.sourceIp',
            method: '$context.httpMethod',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latencyMs: '$context.responseLatency',
            integrationLatencyMs: '$context.integrationLatency',
            integrationStatus: '$context.integrationStatus',
            integrationError: '$context.integrationErrorMessage',
            // What API Gateway itself answered with (throttling, a failed or timed-out function).
            error: '$context.error.message',
            errorType: '$context.error.responseType',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    })

    // The grant route's own throttle, sized to the capacity the README states (stage-config.ts).
    // HttpStage has no per-route settings, hence the L1 property (JSON: CloudFormation's own
    // names); API Gateway refuses settings for a route it does not have yet, hence the dependency.
    const grantRoute = (ROUTES as readonly Route[]).find((r) => r.id === 'GrantTokens')
    if (!grantRoute) throw new Error('functions/routes.ts has no GrantTokens route')
    const cfnStage = stage.node.defaultChild as CfnStage
    cfnStage.routeSettings = {
      [grantRoute.routeKey]: {
        ThrottlingRateLimit: props.grantThrottling.rateLimit,
        ThrottlingBurstLimit: props.grantThrottling.burstLimit,
      },
    }
    for (const route of httpRoutes.GrantTokens ?? []) stage.node.addDependency(route)
    return stage
  }

  /** What routes read from the console's distribution and the upload bucket (their spec says). */
  private routeUploadsAndLinks(uploadBucket: string) {
    for (const route of ROUTES as readonly Route[]) {
      if (!route.uploads) continue
      const fn = this.functions[route.id as RouteId]
      fn.fn.addEnvironment(ENV.uploadBucket, uploadBucket)
      if (route.uploads === 'presign') this.uploads.allowPresign(fn.role)
      else this.uploads.allowRead(fn.role)
    }

    // Routes that render links to the recipient's page (an offer's preview) link to this
    // distribution, which serves /offer. Set here: the distribution exists only now.
    for (const route of ROUTES as readonly (Route & { recipientLinks?: boolean })[]) {
      if (route.recipientLinks) {
        this.functions[route.id as RouteId].fn.addEnvironment(
          ENV.recipientOrigin,
          this.console.origin,
        )
      }
    }
  }

  /** The queues each route sends to (its `sends`). */
  private allowQueueSends() {
    // Routes that send to a queue (functions/routes.ts `sends`: the commit of a batch): its URL
    // and sqs:SendMessage (SendMessageBatch too) on that queue only; no GetQueueUrl, no receive.
    for (const route of ROUTES as readonly Route[]) {
      for (const target of route.sends ?? []) {
        const spec = QUEUES.find((q) => q.id === target)
        const queue = this.pipeline.workQueues[target]
        if (!spec || !queue) throw new Error(`${route.id} sends to ${target}, which is no queue`)
        const fn = this.functions[route.id as RouteId]
        fn.fn.addEnvironment(spec.urlVariable, queue.queueUrl)
        fn.role.addToPolicy(
          new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
        )
      }
    }
  }

  /** The KMS key's one action for each route and consumer whose spec says `kms`. */
  private allowWebhookSecrets() {
    for (const route of ROUTES as readonly Route[]) {
      if (route.kms) this.webhookSecrets.allow(this.functions[route.id as RouteId], route.kms)
    }
    for (const spec of CONSUMERS as readonly ConsumerSpec[]) {
      if (spec.kms)
        this.webhookSecrets.allow(this.pipeline.functions[spec.id as ConsumerId], spec.kms)
    }
  }

  /** The nested alarms stack (docs/decisions/nested-alarms.md). */
  private addAlarms(props: GrantServiceStackProps) {
    // Alarms on the tables some function touches, for the operations its declared actions allow
    // (functions/routes.ts, functions/consumers.ts): not on the admin-only
    // issuers table.
    const declared: { access: Route['access']; indexes?: Route['indexes'] }[] = [
      ...(ROUTES as readonly Route[]),
      ...(CONSUMERS as readonly ConsumerSpec[]),
    ]
    const actionsOn = (table: TableKey) => [
      ...new Set(
        declared.flatMap((d) => [
          ...(d.access[table] ?? []),
          ...Object.values(d.indexes?.[table] ?? {}).flat(),
        ]),
      ),
    ]
    const touched = (Object.keys(this.tables.byKey) as TableKey[]).filter(
      (table) => actionsOn(table).length > 0,
    )
    // In a nested stack: every alarm, present and future, costs this stack one resource in all
    // (docs/decisions/nested-alarms.md).
    return new AlarmsStack(this, 'AlarmsStack', {
      stackName: this.stackName,
      api: this.api,
      functions: {
        ...Object.fromEntries(Object.entries(this.functions).map(([id, f]) => [id, f.fn])),
        ...Object.fromEntries(Object.entries(this.pipeline.functions).map(([id, f]) => [id, f.fn])),
        // Cognito's invitation and password-reset e-mails: if it fails, none goes out.
        CustomMessage: this.identity.customMessage.fn,
      },
      deadLetterQueues: this.pipeline.deadLetterQueues,
      queueAges: Object.fromEntries(
        Object.entries(this.pipeline.workQueues).map(([id, queue]) => [
          id,
          { queue, maxAgeSeconds: QUEUE_MAX_AGE_SECONDS[id as QueueId] },
        ]),
      ),
      streamReaders: Object.fromEntries(
        Object.entries(this.pipeline.streamReaders).map(([id, f]) => [
          id,
          { fn: f.fn, maxIteratorAgeMs: STREAM_MAX_ITERATOR_AGE_MS },
        ]),
      ),
      tables: Object.fromEntries(
        touched.map((table) => [
          table,
          {
            table: this.tables.byKey[table],
            actions: actionsOn(table),
            indexes: this.tables.indexNames[table],
          },
        ]),
      ),
      // Every item of a grant's TransactWriteItems lives in one of these.
      transactionTables: ['apiKeys', 'programs', 'grants'],
      latencyAlarmMs: props.latencyAlarmMs,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    })
  }

  /** The outputs the console, the admin CLI and operators read. */
  private addOutputs(stage: HttpStage, grantListIndex: GrantListIndex) {
    new CfnOutput(this, 'UserPoolId', { value: this.identity.userPool.userPoolId })
    new CfnOutput(this, 'UserPoolClientId', {
      value: this.identity.userPoolClient.userPoolClientId,
    })
    new CfnOutput(this, 'UserPoolIssuer', {
      value: this.identity.issuerUrl,
      description: 'Issuer (iss) of the user pool tokens, for JWT authorizers and the console',
    })

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the grant API' })
    new CfnOutput(this, 'ConsoleUrl', {
      value: this.console.url,
      description: 'The issuer console (invitation e-mails link here unless -c consoleUrl is set)',
    })
    new CfnOutput(this, 'ConsoleDistributionDomainName', {
      value: this.console.distribution.distributionDomainName,
      description: "The console distribution's own domain: the DNS target of a custom domain",
    })
    // The admin CLI lists grants from the index the functions read.
    new CfnOutput(this, GRANT_LIST_INDEX_OUTPUT, {
      value: grantListIndex,
      description: 'The index grant listings read (byProgram only with -c keepLegacyIndexes=true)',
    })
    // The admin CLI finds the tables of a deployed stage through these outputs.
    for (const [table, resource] of Object.entries(this.tables.byKey)) {
      // IssuersTable, ApiKeysTable, ...: the names cli/targets.ts reads.
      new CfnOutput(this, tableOutputKey(table as TableKey), {
        value: resource.tableName,
      })
    }
    for (const route of ROUTES) {
      new CfnOutput(this, `${route.id}FunctionName`, {
        value: this.functions[route.id].fn.functionName,
      })
    }
    for (const [id, fn] of Object.entries(this.pipeline.functions)) {
      new CfnOutput(this, `${id}FunctionName`, { value: fn.fn.functionName })
    }
    // Where failures wait for an operator (docs/deploying.md, "Offer e-mail"): read, fix, redrive.
    for (const [id, queue] of Object.entries(this.pipeline.deadLetterQueues)) {
      new CfnOutput(this, `${id}QueueUrl`, { value: queue.queueUrl })
    }
    new CfnOutput(this, 'MailConfigurationSet', {
      value: this.pipeline.configurationSet.configurationSetName,
      description: 'The SES configuration set offer e-mail is sent with (bounces and complaints)',
    })
  }

  /** cdk-nag findings that were reviewed and accepted, each with its reason. */
  private acknowledgeReviewedFindings() {
    for (const fn of Object.values(this.functions)) {
      Validations.of(fn.fn).acknowledge({
        id: 'AwsSolutions-L1',
        reason:
          'The runtime is pinned to nodejs24.x, the version the product supports and tests; moving to a newer runtime is a deliberate, tested change, not an automatic one.',
      })
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Callers authenticate with x-api-key, checked by the function against SHA-256 hashes in DynamoDB inside the grant transaction, so revocation is immediate; an API Gateway authorizer would add a second lookup per request.',
    })
  }
}
