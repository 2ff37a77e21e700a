import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { App, NestedStack, Stack } from 'aws-cdk-lib'
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions'
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam'
import { Topic } from 'aws-cdk-lib/aws-sns'
import { loadConfig } from '../../functions/config'
import { CONSUMERS, QUEUES } from '../../functions/consumers'
import { ENV, TABLE_ENV } from '../../functions/env-names'
import { ROUTES, type Route, USER_SCOPE } from '../../functions/routes'
import {
  GRANT_LIST_INDEX_OUTPUT,
  INDEX,
  type IndexSchema,
  TABLES,
  type TableSchema,
  tableOutputKey,
} from '../../functions/table-schema'
import { TEMPLATE_PARAMETER_LIMIT } from '../../lib/alarms-stack'
import { GrantTables } from '../../lib/grant-tables'
import { INLINE_POLICY_NAME } from '../../lib/inline-policy-role'
import { checkAwsSolutions } from '../../lib/nag'
import { WEBHOOK_KEY_ACTIONS } from '../../lib/webhook-secrets-key'
import {
  type CfnResource,
  type CfnTemplate,
  CONTEXTS,
  PROJECT_ROOT,
  resource,
  resourcesOfType,
  rolePolicies,
  synth,
} from '../support/synth'

// Two stages, as `cdk deploy` and `cdk deploy -c stage=dev -c ephemeral=true ...` build them.
const prod = synth()
const dev = synth(CONTEXTS.dev)

// The first deploy of an upgrade, for a stage an earlier release deployed with the old indexes.
const legacy = synth(CONTEXTS.legacy)

const FUNCTION_IDS = ROUTES.map((r) => `${r.id}Function`)
const GRANT_ROUTE_KEY = (ROUTES as readonly Route[]).find((r) => r.id === 'GrantTokens')
  ?.routeKey as string
/** The routes that list grants: they may Query the listing index `byProgramSlot`. */
const listsGrants = (route: Route) => route.listsGrants === true
const sortKeyOf = (key: keyof typeof TABLES) => (TABLES[key] as TableSchema).sortKey?.name

const logicalIdOfTable = (template: CfnTemplate, key: keyof typeof TABLES) => {
  const match = resourcesOfType(template, 'AWS::DynamoDB::Table').find(([id]) =>
    id.startsWith(`Tables${key[0]?.toUpperCase()}${key.slice(1)}`),
  )
  if (!match) throw new Error(`no table ${key}`)
  return match[0]
}

/** A queue of functions/consumers.ts by its id, and its logical id in a template. */
const queueSpec = (id: string) => {
  const found = QUEUES.find((q) => q.id === id)
  if (!found) throw new Error(`no queue ${id}`)
  return found
}
const queueLogicalId = (template: CfnTemplate, id: string) => {
  const found = resourcesOfType(template, 'AWS::SQS::Queue').filter(([logicalId]) =>
    new RegExp(`^Pipeline${id}[0-9A-F]{8}$`).test(logicalId),
  )
  if (found.length !== 1) throw new Error(`no single queue ${id}`)
  return (found[0] as [string, CfnResource])[0]
}

type CfnIndex = {
  KeySchema: { AttributeName: string; KeyType: string }[]
  Projection: { ProjectionType: string; NonKeyAttributes?: string[] }
}
/** A table's global secondary indexes in the template, by name. */
const indexesOf = (template: CfnTemplate, key: keyof typeof TABLES): Record<string, CfnIndex> =>
  Object.fromEntries(
    (
      (resource(template, logicalIdOfTable(template, key)).Properties.GlobalSecondaryIndexes ??
        []) as (CfnIndex & { IndexName: string })[]
    ).map(({ IndexName, KeySchema, Projection }) => [IndexName, { KeySchema, Projection }]),
  )
/** What table-schema.ts says an index should be, in CloudFormation's terms. */
const cfnIndex = (index: IndexSchema): CfnIndex => ({
  KeySchema: [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
    ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' }] : []),
  ],
  Projection:
    index.projection.type === 'INCLUDE'
      ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection.nonKeyAttributes] }
      : { ProjectionType: index.projection.type },
})

describe('HTTP API', () => {
  const t = prod.json

  it('is an HTTP API (not REST) routing each route of functions/routes.ts to its own function, payload 2.0', () => {
    const apis = resourcesOfType(t, 'AWS::ApiGatewayV2::Api')
    expect(apis.map(([, api]) => api.Properties.ProtocolType)).toEqual(['HTTP'])
    const routes = resourcesOfType(t, 'AWS::ApiGatewayV2::Route').map(([, r]) => {
      const target = r.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] }
      const integration = t.Resources[target['Fn::Join'][1][1].Ref]?.Properties as {
        IntegrationUri: { 'Fn::GetAtt': [string, string] }
        PayloadFormatVersion: string
        IntegrationType: string
      }
      return {
        routeKey: r.Properties.RouteKey,
        fn: integration.IntegrationUri['Fn::GetAtt'][0],
        payload: integration.PayloadFormatVersion,
        type: integration.IntegrationType,
      }
    })
    expect(routes.sort((a, b) => String(a.routeKey).localeCompare(String(b.routeKey)))).toEqual(
      ROUTES.map((r) => ({
        routeKey: r.routeKey,
        fn: `${r.id}Function`,
        payload: '2.0',
        type: 'AWS_PROXY',
      })).sort((a, b) => a.routeKey.localeCompare(b.routeKey)),
    )
  })

  it('puts the JWT authorizer, with the access-token scope, on every management route and on no other', () => {
    const authorizers = resourcesOfType(t, 'AWS::ApiGatewayV2::Authorizer')
    expect(authorizers).toHaveLength(1)
    const [authorizerId, authorizer] = authorizers[0] as [string, CfnResource]
    expect(authorizer.Properties).toMatchObject({
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        // The pool's issuer URL, and the app client as the audience (API Gateway checks
        // `client_id` of access tokens against it).
        Issuer: expect.objectContaining({ 'Fn::Join': expect.any(Array) }),
        Audience: [{ Ref: expect.stringMatching(/ConsoleClient/) }],
      },
    })
    expect(JSON.stringify(authorizer.Properties.JwtConfiguration)).toContain('cognito-idp.')
    const byKey = new Map(
      resourcesOfType(t, 'AWS::ApiGatewayV2::Route').map(([, r]) => [
        r.Properties.RouteKey as string,
        r.Properties,
      ]),
    )
    const userRoutes = (ROUTES as readonly Route[]).filter((r) => r.auth === 'user')
    expect(userRoutes.length).toBeGreaterThan(0)
    for (const route of ROUTES as readonly Route[]) {
      if (route.routeKey === '$default') continue
      const cfn = byKey.get(route.routeKey)
      if (route.auth === 'user') {
        expect({ route: route.routeKey, ...cfn }).toMatchObject({
          route: route.routeKey,
          AuthorizationType: 'JWT',
          AuthorizerId: { Ref: authorizerId },
          AuthorizationScopes: [USER_SCOPE],
        })
      } else {
        expect({ route: route.routeKey, type: cfn?.AuthorizationType ?? 'NONE' }).toEqual({
          route: route.routeKey,
          type: 'NONE',
        })
      }
    }
  })

  it('throttles the stage from context and writes JSON access logs without headers to a retained log group', () => {
    const stage = (template: CfnTemplate) =>
      resourcesOfType(template, 'AWS::ApiGatewayV2::Stage')[0]?.[1].Properties as {
        StageName: string
        AutoDeploy: boolean
        DefaultRouteSettings: { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }
        AccessLogSettings: { DestinationArn: { 'Fn::GetAtt': [string, string] }; Format: string }
      }
    expect(stage(prod.json)).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    })
    expect(stage(dev.json).DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: 25,
      ThrottlingBurstLimit: 50,
    })
    // The grant route has its own, from its own context.
    const grantRoute = (t: CfnTemplate) => {
      const [, cfnStage] = resourcesOfType(t, 'AWS::ApiGatewayV2::Stage')[0] as [
        string,
        CfnResource,
      ]
      return (cfnStage.Properties.RouteSettings as Record<string, unknown>)[GRANT_ROUTE_KEY]
    }
    expect(grantRoute(synth(CONTEXTS.everyOption).json)).toEqual({
      ThrottlingRateLimit: 300,
      ThrottlingBurstLimit: 600,
    })
    expect(() => synth({ grantThrottleBurst: '0' })).toThrow(/grantThrottleBurst/)
    const logs = stage(prod.json).AccessLogSettings
    const format = JSON.parse(logs.Format) as Record<string, string>
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      routeKey: '$context.routeKey',
      // Why API Gateway itself answered (throttled, function failed or timed out).
      error: '$context.error.message',
      errorType: '$context.error.responseType',
    })
    expect(logs.Format).not.toMatch(/header|x-api-key|authorizer/i)
    // The route key, never the path: a recipient's e-mail address is a segment of
    // /programs/{programId}/recipients/{email}/balance, and a link token must never be logged.
    expect(Object.values(format)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^\$context\.(path|rawPath|resourcePath)$/)]),
    )
    expect(logs.Format).not.toMatch(/\$context\.(path|rawPath|resourcePath|rawQueryString)\b/)
    expect(logs.Format).not.toMatch(/\$(request|input|context\.requestOverride)/)
    const logGroup = t.Resources[logs.DestinationArn['Fn::GetAtt'][0]]
    expect(logGroup?.Type).toBe('AWS::Logs::LogGroup')
    expect(logGroup?.Properties.RetentionInDays).toBe(90)
    // Under /aws/vendedlogs/, so it stays out of the account's 5,120-character Logs resource
    // policy; unique per stack through the stack id's UUID.
    expect(logGroup?.Properties.LogGroupName).toEqual({
      'Fn::Join': [
        '',
        [
          '/aws/vendedlogs/apigateway/VirtualShares-prod-',
          { 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: 'AWS::StackId' }] }] },
        ],
      ],
    })
  })
})

describe('capacity of a plain deploy', () => {
  /** The figure docs/performance.md, "Capacity on real DynamoDB", states for one program. */
  const statedGrantsPerSecond = () => {
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'performance.md'), 'utf8')
    const section = page.split('\n## Capacity on real DynamoDB\n')[1]?.split('\n## ')[0] ?? ''
    const match = section.match(/sized for \*\*([\d,]+) grants a second\*\*/)
    if (!match?.[1]) throw new Error('docs/performance.md, Capacity: no figure')
    return Number(match[1].replace(/,/g, ''))
  }
  const stageOf = (t: CfnTemplate) =>
    resourcesOfType(t, 'AWS::ApiGatewayV2::Stage')[0] as [
      string,
      CfnResource & { DependsOn?: string[] },
    ]

  it('lets the grant route take the grants a second the docs state, within the default account quota', () => {
    const stated = statedGrantsPerSecond()
    expect(stated).toBeGreaterThanOrEqual(1_000)
    const [, stage] = stageOf(prod.json)
    const settings = (stage.Properties.RouteSettings as Record<string, Record<string, number>>)[
      GRANT_ROUTE_KEY
    ]
    // Steady rate and burst both at or above the figure: API Gateway answers 429 below neither.
    expect(settings?.ThrottlingRateLimit).toBeGreaterThanOrEqual(stated)
    expect(settings?.ThrottlingBurstLimit).toBeGreaterThanOrEqual(stated)
    // API Gateway's default quota per account and region, which a route cannot exceed: 10,000
    // requests a second, burst 5,000 (docs/performance.md names it among the quotas a stage needs).
    expect(settings?.ThrottlingRateLimit).toBeLessThanOrEqual(10_000)
    expect(settings?.ThrottlingBurstLimit).toBeLessThanOrEqual(5_000)
    // The other routes keep the stage's default (management and reads, 100 a second).
    expect(Object.keys(stage.Properties.RouteSettings as object)).toEqual([GRANT_ROUTE_KEY])
  })

  it('names a route the API has, and is created after it (API Gateway refuses settings for an unknown route)', () => {
    const [, stage] = stageOf(prod.json)
    const [routeId] = resourcesOfType(prod.json, 'AWS::ApiGatewayV2::Route').find(
      ([, r]) => r.Properties.RouteKey === GRANT_ROUTE_KEY,
    ) as [string, CfnResource]
    expect(stage.DependsOn).toContain(routeId)
  })
})

describe('Lambda functions', () => {
  const t = prod.json

  it.each(FUNCTION_IDS)(
    '%s: nodejs24.x on arm64, explicit memory, timeout and log group with retention',
    (id) => {
      const fn = resource(t, id)
      expect(fn.Type).toBe('AWS::Lambda::Function')
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
        Timeout: 10,
      })
      const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref
      expect(resource(t, logGroupId).Properties.RetentionInDays).toBe(90)
      expect(resource(dev.json, id).Properties.FunctionName).toBeUndefined()
    },
  )

  it('sets exactly the variables config.ts reads, with the generated table names, plus Powertools and source maps', () => {
    // The variables loadConfig reads, recorded by an environment that answers every name.
    const read = new Set<string>()
    loadConfig(
      new Proxy({} as Record<string, string>, {
        get: (_, name) => {
          read.add(String(name))
          // Values checked at load get one of the shapes they may have.
          if (name === ENV.grantsListIndex) return INDEX.grantsByProgram
          if (name === ENV.recipientOrigin) return 'https://console.example.com'
          if (name === ENV.mailFallbackSendRate) return '1'
          return 'x'
        },
      }),
    )
    // Every name config.ts reads is set by the stack on every function, except the one Lambda
    // sets (AWS_REGION), those only npm start and tests set (the emulator,
    // the mail sink), and those set only where a route needs them (checked per route below; a
    // stage's SES sender: test/infra/identity.test.ts).
    const byRuntime = [ENV.awsRegion]
    // The local key that seals webhook secrets, and loopback receivers: npm start and tests only
    // (a stage seals with its KMS key and refuses loopback; checked below and by the KMS test).
    const localOnly = [
      ENV.cognitoEndpoint,
      ENV.mailSinkFile,
      ENV.webhookLocalSecretKey,
      ENV.webhookAllowLoopback,
    ]
    // Read with a default and set by no function of the stack.
    const optional = [ENV.mailFallbackSendRate]
    const perRoute = [
      ENV.grantsListIndex,
      ENV.userPoolId,
      ENV.consoleUrl,
      ENV.mailFrom,
      ENV.mailSesRegion,
      // Send to many's upload bucket (test/infra/upload-bucket.test.ts).
      ENV.uploadBucket,
      // The offer mailer's (test/infra/grant-pipeline.test.ts).
      ENV.mailConfigurationSet,
      ENV.recipientOrigin,
      // The webhook secrets' key, where the spec says `kms` (checked per route below).
      ENV.webhookKmsKeyId,
    ]
    const notEverywhere = new Set<string>([...byRuntime, ...localOnly, ...optional, ...perRoute])
    const expected = new Set([...read].filter((name) => !notEverywhere.has(name)))
    expect(expected).toEqual(new Set([...Object.values(TABLE_ENV), ENV.dynamodbEndpoint]))
    for (const name of notEverywhere) expect(read).toContain(name)
    for (const route of ROUTES as readonly Route[]) {
      const id = `${route.id}Function`
      const variables = (
        resource(t, id).Properties.Environment as { Variables: Record<string, unknown> }
      ).Variables
      // The user pool's id only where the function calls Cognito; a queue's URL only where the
      // function sends to it (the commit of a batch: GRANT_BATCH_ROWS_QUEUE_URL).
      const identity = [
        ...(route.cognito ? [ENV.userPoolId] : []),
        ...(listsGrants(route) ? [ENV.grantsListIndex] : []),
        ...(route.sends ?? []).map((id) => queueSpec(id).urlVariable),
        // The console's address where the function sends mail of its own (no SES sender here,
        // so no MAIL_FROM: test/infra/identity.test.ts covers a stage with one).
        ...((route as Route).mail ? [ENV.consoleUrl] : []),
        // The recipient page's origin where the function renders its links (an offer's preview).
        ...((route as Route & { recipientLinks?: boolean }).recipientLinks
          ? [ENV.recipientOrigin]
          : []),
        // The upload bucket where the function presigns or reads uploads.
        ...(route.uploads ? [ENV.uploadBucket] : []),
        // The key that seals webhook secrets where the function seals or opens one.
        ...(route.kms ? [ENV.webhookKmsKeyId] : []),
      ]
      expect(new Set(Object.keys(variables))).toEqual(
        new Set([
          ...expected,
          ...identity,
          'NODE_OPTIONS',
          'POWERTOOLS_SERVICE_NAME',
          'POWERTOOLS_LOG_LEVEL',
        ]),
      )
      for (const id of route.sends ?? []) {
        // The queue's URL is its Ref, the queue of that id (not its dead letters).
        expect(variables[queueSpec(id).urlVariable]).toEqual({ Ref: queueLogicalId(t, id) })
      }
      if (route.cognito) {
        expect(variables[ENV.userPoolId]).toEqual({
          Ref: expect.stringMatching(/^IdentityUserPool/),
        })
      }
      expect(variables).toMatchObject({
        ...Object.fromEntries(
          Object.entries(TABLE_ENV).map(([table, name]) => [
            name,
            { Ref: logicalIdOfTable(t, table as keyof typeof TABLES) },
          ]),
        ),
        [ENV.dynamodbEndpoint]: '',
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'virtual-share-grants',
        POWERTOOLS_LOG_LEVEL: 'INFO',
      })
      expect(
        (resource(dev.json, id).Properties.Environment as { Variables: Record<string, unknown> })
          .Variables.POWERTOOLS_LOG_LEVEL,
      ).toBe('DEBUG')
    }
  })
})

describe('least privilege', () => {
  const t = prod.json
  /** Every (action, resource) pair a function's role is allowed. */
  const grantsOf = (fnId: string) => {
    const roleId = (resource(t, fnId).Properties.Role as { 'Fn::GetAtt': [string] })[
      'Fn::GetAtt'
    ][0]
    const pairs: string[] = []
    for (const [, policy] of rolePolicies(t)) {
      const roles = policy.Properties.Roles as { Ref: string }[]
      if (!roles.some((r) => r.Ref === roleId)) continue
      const doc = policy.Properties.PolicyDocument as {
        Statement: { Action: string | string[]; Resource: unknown; Effect: string }[]
      }
      for (const s of doc.Statement) {
        expect(s.Effect).toBe('Allow')
        for (const action of [s.Action].flat()) {
          for (const resource of [s.Resource].flat()) {
            pairs.push(
              `${action} ${(resource as { 'Fn::GetAtt': [string] })['Fn::GetAtt']?.[0] ?? JSON.stringify(resource)}`,
            )
          }
        }
      }
    }
    const role = t.Resources[roleId]
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined()
    // Its one inline policy (lib/inline-policy-role.ts), no policy resource of its own.
    expect(
      ((role?.Properties.Policies ?? []) as { PolicyName: string }[]).map((p) => p.PolicyName),
    ).toEqual([INLINE_POLICY_NAME])
    return pairs.sort()
  }
  const logs = (fnId: string) => {
    const group = (resource(t, fnId).Properties.LoggingConfig as { LogGroup: { Ref: string } })
      .LogGroup.Ref
    return [`logs:CreateLogStream ${group}`, `logs:PutLogEvents ${group}`]
  }

  it('lets the grant function read key and program (no ConditionCheck: checks are cached for 1 s), move a shard and put the grant', () => {
    const keys = logicalIdOfTable(t, 'apiKeys')
    const programs = logicalIdOfTable(t, 'programs')
    const grants = logicalIdOfTable(t, 'grants')
    expect(grantsOf('GrantTokensFunction')).toEqual(
      [
        ...logs('GrantTokensFunction'),
        `dynamodb:GetItem ${keys}`,
        `dynamodb:BatchGetItem ${keys}`,
        `dynamodb:UpdateItem ${programs}`,
        `dynamodb:GetItem ${programs}`,
        `dynamodb:BatchGetItem ${programs}`,
        `dynamodb:PutItem ${grants}`,
        `dynamodb:GetItem ${grants}`,
        // Its keys' rate buckets only (the condition: below).
        `dynamodb:UpdateItem ${keys}`,
      ].sort(),
    )
  })

  it('lets the read function only read keys and grants and lease rate buckets, and the catch-all function nothing', () => {
    expect(grantsOf('GetGrantFunction')).toEqual(
      [
        ...logs('GetGrantFunction'),
        `dynamodb:BatchGetItem ${logicalIdOfTable(t, 'apiKeys')}`,
        `dynamodb:GetItem ${logicalIdOfTable(t, 'apiKeys')}`,
        `dynamodb:UpdateItem ${logicalIdOfTable(t, 'apiKeys')}`,
        `dynamodb:BatchGetItem ${logicalIdOfTable(t, 'grants')}`,
      ].sort(),
    )
    expect(grantsOf('NotFoundFunction')).toEqual(logs('NotFoundFunction').sort())
  })

  it('gives every function exactly what its route declares in functions/routes.ts, and nothing else', () => {
    const poolId = resourcesOfType(t, 'AWS::Cognito::UserPool')[0]?.[0]
    const webhookKeyId = resourcesOfType(t, 'AWS::KMS::Key')[0]?.[0]
    const uploadBucketId = resourcesOfType(t, 'AWS::S3::Bucket').find(([, b]) =>
      JSON.stringify(b.Properties.BucketName ?? '').includes('-uploads-'),
    )?.[0]
    for (const route of ROUTES as readonly Route[]) {
      const fnId = `${route.id}Function`
      const tables = Object.entries(route.access) as [keyof typeof TABLES, string[]][]
      const indexes = Object.entries(route.indexes ?? {}) as [
        keyof typeof TABLES,
        Record<string, string[]>,
      ][]
      const expected = [
        ...logs(fnId),
        ...tables.flatMap(([table, actions]) =>
          actions.map((action) => `${action} ${logicalIdOfTable(t, table)}`),
        ),
        ...indexes.flatMap(([table, byIndex]) =>
          Object.entries(byIndex).flatMap(([index, actions]) =>
            // A plain deploy has no `byProgram`: a listing may Query `byProgramSlot` alone.
            [index].flatMap((name) =>
              actions.map(
                (action) =>
                  `${action} ${JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalIdOfTable(t, table), 'Arn'] }, `/index/${name}`]] })}`,
              ),
            ),
          ),
        ),
        ...(route.cognito ?? []).map((action) => `${action} ${poolId}`),
        // A key's rate bucket: `rate#` items only (its condition: the test below).
        ...(route.rateBuckets ? [`dynamodb:UpdateItem ${logicalIdOfTable(t, 'apiKeys')}`] : []),
        // The upload bucket's uploads/ prefix: one action (test/infra/upload-bucket.test.ts).
        ...(route.uploads
          ? [
              `${route.uploads === 'presign' ? 's3:PutObject' : 's3:GetObject'} ${JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [uploadBucketId, 'Arn'] }, '/uploads/*']] })}`,
            ]
          : []),
        // Send only (SendMessageBatch is authorised by it), on the queue the route names.
        ...(route.sends ?? []).map((id) => `sqs:SendMessage ${queueLogicalId(t, id)}`),
        // The one KMS action on the webhook secrets' key (its condition:
        // test/infra/webhook-secrets-key.test.ts).
        ...(route.kms ? [`${WEBHOOK_KEY_ACTIONS[route.kms]} ${webhookKeyId}`] : []),
      ]
      expect({ fnId, grants: grantsOf(fnId) }).toEqual({ fnId, grants: expected.sort() })
    }
  })

  it("lets the integrator routes write the apiKeys table's rate buckets, and no key", () => {
    const limited = (ROUTES as readonly Route[]).filter((route) => route.rateBuckets)
    expect(limited.map((route) => route.id).sort()).toEqual(
      [
        'GrantTokens',
        'GetGrant',
        'GetProgramByKey',
        'ListGrantsByKey',
        'CancelGrantByKey',
        'TestTransitionByKey',
        'RecipientBalanceByKey',
      ].sort(),
    )
    const apiKeysTable = logicalIdOfTable(t, 'apiKeys')
    for (const route of limited) {
      const roleId = (
        resource(t, `${route.id}Function`).Properties.Role as { 'Fn::GetAtt': [string] }
      )['Fn::GetAtt'][0]
      const writes = rolePolicies(t)
        .filter(([, policy]) =>
          (policy.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
        )
        .flatMap(([, policy]) =>
          (
            policy.Properties.PolicyDocument as {
              Statement: { Action: string | string[]; Resource: unknown; Condition?: unknown }[]
            }
          ).Statement.filter(
            (s) =>
              [s.Action].flat().includes('dynamodb:UpdateItem') &&
              JSON.stringify(s.Resource).includes(apiKeysTable),
          ),
        )
      expect({ route: route.id, conditions: writes.map((s) => s.Condition) }).toEqual({
        route: route.id,
        conditions: [{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['rate#*'] } }],
      })
    }
  })

  it('lets the commit of a batch send its chunks to GrantBatchRows, and no function invoke a function', () => {
    expect(grantsOf('CreateGrantBatchFunction')).toContain(
      `sqs:SendMessage ${queueLogicalId(t, 'GrantBatchRows')}`,
    )
    // The worker is started by its queue's event source mapping (test/infra/grant-pipeline.test.ts),
    // never by another function nor by itself: no lambda:InvokeFunction in any policy, no
    // permission for a role or a function to invoke it.
    for (const template of [prod.json, dev.json, legacy.json]) {
      const policies = JSON.stringify(rolePolicies(template))
      expect(policies).not.toMatch(/lambda:Invoke/)
      expect(
        resourcesOfType(template, 'AWS::Lambda::Permission').filter(
          ([, p]) =>
            JSON.stringify(p.Properties.FunctionName).includes('GrantBatchWorker') ||
            JSON.stringify(p.Properties.Principal).includes('role'),
        ),
      ).toEqual([])
    }
    // The worker itself: it consumes its queue (the event source's grant) and sends nothing.
    const rows = queueLogicalId(t, 'GrantBatchRows')
    expect(grantsOf('GrantBatchWorkerFunction').filter((g) => /^(lambda|sqs):/.test(g))).toEqual(
      [
        `sqs:ChangeMessageVisibility ${rows}`,
        `sqs:DeleteMessage ${rows}`,
        `sqs:GetQueueAttributes ${rows}`,
        `sqs:GetQueueUrl ${rows}`,
        `sqs:ReceiveMessage ${rows}`,
      ].sort(),
    )
  })

  it('grants no Scan, no wildcard action and no wildcard resource but the two IAM has no resource for', () => {
    const text = JSON.stringify(rolePolicies(t))
    expect(text).not.toMatch(/dynamodb:Scan|dynamodb:\*|cognito-idp:\*|sqs:\*|ses:\*|"[a-z-]+:\*"/)
    // On "*" only: dynamodb:ListStreams for the stream's two readers (their event sources' grant), and
    // ses:GetAccount for the offer mailer when the stage sends mail (its account's sending rate).
    const wildcards = (template: CfnTemplate) =>
      rolePolicies(template).flatMap(([, policy]) =>
        (
          policy.Properties.PolicyDocument as {
            Statement: { Action: string | string[]; Resource: unknown }[]
          }
        ).Statement.filter((s) => [s.Resource].flat().includes('*')).map((s) => ({
          roles: policy.Properties.Roles,
          actions: [s.Action].flat(),
        })),
      )
    const roleOf = (template: CfnTemplate, fnId: string) => [
      {
        Ref: (resource(template, fnId).Properties.Role as { 'Fn::GetAtt': [string] })[
          'Fn::GetAtt'
        ][0],
      },
    ]
    // The grants stream's two readers (ListStreams has no resource in IAM).
    expect(wildcards(t)).toEqual([
      { roles: roleOf(t, 'GrantStreamFunction'), actions: ['dynamodb:ListStreams'] },
      { roles: roleOf(t, 'GrantFiguresFunction'), actions: ['dynamodb:ListStreams'] },
    ])
    const mailing = synth(CONTEXTS.mailing).json
    expect(wildcards(mailing)).toEqual(
      expect.arrayContaining([
        { roles: roleOf(mailing, 'OfferMailerFunction'), actions: ['ses:GetAccount'] },
      ]),
    )
    expect(wildcards(mailing)).toHaveLength(3)
  })
})

describe('DynamoDB tables', () => {
  it.each(Object.keys(TABLES) as (keyof typeof TABLES)[])(
    '%s: on-demand, PITR, encrypted, generated name, key schema from table-schema.ts',
    (key) => {
      const table = resource(prod.json, logicalIdOfTable(prod.json, key)).Properties as Record<
        string,
        unknown
      >
      expect(table).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: [
          { AttributeName: TABLES[key].partitionKey.name, KeyType: 'HASH' },
          ...(sortKeyOf(key) ? [{ AttributeName: sortKeyOf(key), KeyType: 'RANGE' }] : []),
        ],
      })
      expect(table.TableName).toBeUndefined()
      // A plain deploy: exactly the indexes the code reads, on every stage.
      expect(indexesOf(prod.json, key)).toEqual(
        Object.fromEntries(
          TABLES[key].globalSecondaryIndexes.map((i) => [i.indexName, cfnIndex(i)]),
        ),
      )
      expect(indexesOf(dev.json, key)).toEqual(indexesOf(prod.json, key))
      // `-c keepLegacyIndexes=true`: the indexes this release replaced stay beside them.
      const kept: readonly IndexSchema[] = [
        ...TABLES[key].globalSecondaryIndexes,
        ...TABLES[key].legacyIndexes,
      ]
      expect(indexesOf(legacy.json, key)).toEqual(
        Object.fromEntries(kept.map((i) => [i.indexName, cfnIndex(i)])),
      )
    },
  )

  it('builds no index that projects every attribute and that a grant writes, on a plain deploy', () => {
    // The legacy indexes were exactly that: `byIssuer` (every grant moves `issued`/`remaining`)
    // and `byProgram` (one partition per program). None may come back in a plain deploy.
    const legacyNames = (Object.keys(TABLES) as (keyof typeof TABLES)[]).flatMap((key) =>
      (TABLES[key].legacyIndexes as readonly IndexSchema[]).map((i) => `${key}/${i.indexName}`),
    )
    expect(legacyNames.sort()).toEqual(['grants/byProgram', 'programs/byIssuer'])
    for (const key of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
      for (const name of Object.keys(indexesOf(prod.json, key))) {
        expect(legacyNames).not.toContain(`${key}/${name}`)
      }
    }
  })

  it('lists programs by issuer through byIssuerV2, which projects only the mode, so grants never write it', () => {
    expect(indexesOf(prod.json, 'programs')).toEqual({
      byIssuerV2: {
        KeySchema: [
          { AttributeName: 'issuerId', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['mode'] },
      },
    })
    // A grant updates `issued` and `remaining` on the program item (and nothing else of it).
    for (const template of [prod.json, legacy.json]) {
      const current = indexesOf(template, 'programs').byIssuerV2
      expect(current?.Projection.ProjectionType).not.toBe('ALL')
      expect(current?.Projection.NonKeyAttributes ?? []).not.toEqual(
        expect.arrayContaining(['issued']),
      )
      expect(current?.Projection.NonKeyAttributes ?? []).not.toEqual(
        expect.arrayContaining(['remaining']),
      )
    }
    // The legacy index, kept only with the flag, is the one that projected everything.
    expect(indexesOf(legacy.json, 'programs').byIssuer?.Projection).toEqual({
      ProjectionType: 'ALL',
    })
    expect(indexesOf(prod.json, 'programs').byIssuer).toBeUndefined()
  })

  it('spreads each program of the grants table over the slots of byProgramSlot', () => {
    const slotIndex = {
      KeySchema: [
        { AttributeName: 'programSlot', KeyType: 'HASH' },
        { AttributeName: 'createdAt', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    }
    // A recipient's grants (issue 19): only what picks them, so a grant's own updates rarely
    // write it.
    const recipientIndex = {
      KeySchema: [
        { AttributeName: 'recipientKey', KeyType: 'HASH' },
        { AttributeName: 'createdAt', KeyType: 'RANGE' },
      ],
      Projection: {
        ProjectionType: 'INCLUDE',
        NonKeyAttributes: ['programId', 'issuerId', 'mode', 'status', 'amount'],
      },
    }
    // A plain deploy (a new stage, or the second deploy of an upgrade): the slot index, and the
    // recipient index.
    expect(indexesOf(prod.json, 'grants')).toEqual({
      byProgramSlot: slotIndex,
      byRecipient: recipientIndex,
    })
    // The first deploy of an upgrade: beside `byProgram`, which holds the grants written before.
    expect(indexesOf(legacy.json, 'grants')).toEqual({
      byProgramSlot: slotIndex,
      byRecipient: recipientIndex,
      byProgram: {
        KeySchema: [
          { AttributeName: 'programId', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    })
  })

  it('lists grants from byProgramSlot, and from byProgram only on a stage that keeps it', () => {
    const listing = (ROUTES as readonly Route[]).filter(listsGrants).map((r) => r.id)
    expect(listing.sort()).toEqual(['ListGrants', 'ListGrantsByKey'])
    /** The indexes of the grants table a function may Query, by name. */
    const queried = (template: CfnTemplate, fnId: string) => {
      const roleId = (resource(template, fnId).Properties.Role as { 'Fn::GetAtt': [string] })[
        'Fn::GetAtt'
      ][0]
      const grants = logicalIdOfTable(template, 'grants')
      return rolePolicies(template)
        .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
        .flatMap(([, p]) =>
          (
            p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
          ).Statement.filter((st) => [st.Action].flat().includes('dynamodb:Query')).flatMap((st) =>
            [st.Resource].flat(),
          ),
        )
        .map((r) => JSON.stringify(r))
        .filter((r) => r.includes(grants))
        .map((r) => r.match(/\/index\/(\w+)/)?.[1])
        .sort()
    }
    for (const id of listing) {
      const env = (template: CfnTemplate) =>
        (
          resource(template, `${id}Function`).Properties.Environment as {
            Variables: Record<string, unknown>
          }
        ).Variables[ENV.grantsListIndex]
      expect([id, env(prod.json), queried(prod.json, `${id}Function`)]).toEqual([
        id,
        'byProgramSlot',
        ['byProgramSlot'],
      ])
      expect([id, env(legacy.json), queried(legacy.json, `${id}Function`)]).toEqual([
        id,
        'byProgram',
        ['byProgram', 'byProgramSlot'],
      ])
    }
    // ListGrantBatches reads a program's batches, which sit in byProgramSlot under a key no grant
    // has (functions/domain/batch.ts batchListSlot): that index only, on every stage, untold.
    for (const template of [prod.json, legacy.json]) {
      const fn = resource(template, 'ListGrantBatchesFunction').Properties.Environment as {
        Variables: Record<string, unknown>
      }
      expect(fn.Variables[ENV.grantsListIndex]).toBeUndefined()
      expect(queried(template, 'ListGrantBatchesFunction')).toEqual(['byProgramSlot'])
    }
    // Every other function lists nothing and is told nothing about it (it may query other
    // indexes, a recipient's `byRecipient`).
    const listingIndexes: string[] = [INDEX.grantsByProgram, INDEX.grantsByProgramSlot]
    for (const route of (ROUTES as readonly Route[]).filter(
      (r) => !listsGrants(r) && r.id !== 'ListGrantBatches',
    )) {
      expect({
        id: route.id,
        queried: queried(legacy.json, `${route.id}Function`).filter((i) =>
          listingIndexes.includes(i as string),
        ),
      }).toEqual({ id: route.id, queried: [] })
    }
    // The admin CLI reads the same index, from the stack's outputs.
    expect(prod.json.Outputs[GRANT_LIST_INDEX_OUTPUT]?.Value).toBe('byProgramSlot')
    expect(legacy.json.Outputs[GRANT_LIST_INDEX_OUTPUT]?.Value).toBe('byProgram')
  })

  it('upgrades a stage with at most one index created or deleted per table and deploy', () => {
    const namesOf = (t: CfnTemplate) =>
      Object.fromEntries(
        (Object.keys(TABLES) as (keyof typeof TABLES)[]).map((key) => [
          key,
          Object.keys(indexesOf(t, key)),
        ]),
      )
    /** Per table, the indexes a deploy of `to` creates and deletes on a stage that has `from`. */
    const changes = (from: Partial<Record<string, string[]>>, to: CfnTemplate) =>
      Object.fromEntries(
        (Object.keys(TABLES) as (keyof typeof TABLES)[])
          // A new table is created with its indexes, which CloudFormation allows in one update.
          .filter((key) => from[key] !== undefined)
          .map((key) => {
            const after = Object.keys(indexesOf(to, key))
            const before = from[key] ?? []
            return [
              key,
              {
                created: after.filter((i) => !before.includes(i)),
                deleted: before.filter((i) => !after.includes(i)),
              },
            ]
          }),
      )
    const none = { created: [], deleted: [] }
    // The previous release's plain deploy: listing slots, no legacy index, no timers or inbox.
    const previous = {
      issuers: [],
      apiKeys: ['byKeyId', 'byIssuer'],
      programs: ['byIssuerV2'],
      grants: ['byProgramSlot'],
      memberships: ['bySub'],
      audit: [],
    }
    // One plain deploy: the recipient index on grants, and the new tables.
    expect(changes(previous, prod.json)).toEqual({
      issuers: none,
      apiKeys: none,
      programs: none,
      grants: { created: ['byRecipient'], deleted: [] },
      memberships: none,
      audit: none,
    })
    expect(namesOf(prod.json).timers).toEqual([])
    expect(namesOf(prod.json).inbox).toEqual([])
    expect(namesOf(prod.json).webhooks).toEqual([])
    // A stage the previous release left in the middle of its upgrade (both listing indexes):
    // `-c keepLegacyIndexes=true` adds byRecipient, then a plain deploy drops the legacy ones.
    const midUpgrade = {
      ...previous,
      programs: ['byIssuer', 'byIssuerV2'],
      grants: ['byProgram', 'byProgramSlot'],
    }
    expect(changes(midUpgrade, legacy.json)).toEqual({
      issuers: none,
      apiKeys: none,
      programs: none,
      grants: { created: ['byRecipient'], deleted: [] },
      memberships: none,
      audit: none,
    })
    expect(changes(namesOf(legacy.json), prod.json)).toEqual({
      issuers: none,
      apiKeys: none,
      programs: { created: [], deleted: ['byIssuer'] },
      grants: { created: [], deleted: ['byProgram'] },
      memberships: none,
      audit: none,
      timers: none,
      inbox: none,
      webhooks: none,
      figures: none,
      requests: none,
    })
    // A stage from before the listing slots would need two creations on grants in one update:
    // CloudFormation refuses it and rolls back, nothing lost. docs/deploying.md has it upgrade
    // with the previous release first.
    const beforeSlots = { ...previous, programs: ['byIssuer'], grants: ['byProgram'] }
    expect(changes(beforeSlots, legacy.json).grants).toEqual({
      created: ['byProgramSlot', 'byRecipient'],
      deleted: [],
    })
  })

  it("reads the upgrade flags strictly, and the earlier release's dropLegacyIndexes as it meant", () => {
    // The flags are GrantTables' own (it reads them from the context): its tables alone, in an app
    // with the context, show what each flag does without a synth of the whole stack per flag.
    const tablesOnly = (context: Record<string, string>) => {
      const stack = new Stack(new App({ builtinCloudFormationValidation: false, context }), 'T')
      new GrantTables(stack, 'Tables', { ephemeral: false })
      return Template.fromStack(stack).toJSON() as CfnTemplate
    }
    const indexNames = (context: Record<string, string>) =>
      Object.keys(indexesOf(tablesOnly(context), 'grants')).sort()
    // ...and they are the stack's tables: the same indexes as the plain and the legacy synth.
    expect(indexesOf(tablesOnly({}), 'grants')).toEqual(indexesOf(prod.json, 'grants'))
    expect(indexesOf(tablesOnly({ keepLegacyIndexes: 'true' }), 'grants')).toEqual(
      indexesOf(legacy.json, 'grants'),
    )
    // Its second deploy (`-c dropLegacyIndexes=true`, perhaps in cdk.json) is a plain deploy now,
    // and `false` kept the old indexes, as keepLegacyIndexes=true does.
    expect(indexNames({ dropLegacyIndexes: 'true' })).toEqual(['byProgramSlot', 'byRecipient'])
    expect(indexNames({ dropLegacyIndexes: 'false' })).toEqual([
      'byProgram',
      'byProgramSlot',
      'byRecipient',
    ])
    expect(indexNames({ keepLegacyIndexes: 'false' })).toEqual(['byProgramSlot', 'byRecipient'])
    expect(() => synth({ keepLegacyIndexes: 'yes' })).toThrow(
      /keepLegacyIndexes must be true or false/,
    )
    expect(() => synth({ dropLegacyIndexes: 'yes' })).toThrow(
      /dropLegacyIndexes must be true or false/,
    )
    expect(() => synth({ keepLegacyIndexes: 'true', dropLegacyIndexes: 'true' })).toThrow(
      /contradict/,
    )
  })

  it('retains data with deletion protection on a production stage', () => {
    for (const [, table] of resourcesOfType(prod.json, 'AWS::DynamoDB::Table')) {
      expect(table.DeletionPolicy).toBe('Retain')
      expect(table.UpdateReplacePolicy).toBe('Retain')
      expect(table.Properties.DeletionProtectionEnabled).toBe(true)
    }
  })

  it('keeps log groups with a production stage and drops them with an ephemeral one', () => {
    const policies = (t: CfnTemplate) =>
      new Set(resourcesOfType(t, 'AWS::Logs::LogGroup').map(([, g]) => g.DeletionPolicy))
    expect(policies(prod.json)).toEqual(new Set(['Retain']))
    expect(policies(dev.json)).toEqual(new Set(['Delete']))
    // One for the grant API's routes, one for the management routes, one for every consumer of
    // functions/consumers.ts (the batch worker is one), the API's access logs, the Cognito
    // trigger's and the console deployment's (docs/decisions/stack-room.md).
    expect(resourcesOfType(dev.json, 'AWS::Logs::LogGroup')).toHaveLength(6)
  })

  it('lets only an ephemeral stage destroy its tables', () => {
    for (const [, table] of resourcesOfType(dev.json, 'AWS::DynamoDB::Table')) {
      expect(table.DeletionPolicy).toBe('Delete')
      expect(table.Properties.DeletionProtectionEnabled).toBe(false)
    }
    expect(() => synth({ stage: 'prod', ephemeral: 'true' })).toThrow(
      /prod stage cannot be ephemeral/,
    )
    expect(() => synth({ stage: 'Dev Stage' })).toThrow(/Context stage/)
    expect(() => synth({ throttleRate: '-1' })).toThrow(/throttleRate/)
  })
})

// The alarms' own tests: test/infra/alarms.test.ts and test/infra/alarm-path.test.ts.

describe('outputs and stages', () => {
  it('outputs the API URL, the table names and the function names', () => {
    const outputs = prod.json.Outputs
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'ApiUrl',
        GRANT_LIST_INDEX_OUTPUT,
        ...Object.keys(TABLES).map((key) => tableOutputKey(key as keyof typeof TABLES)),
        ...ROUTES.map((r) => `${r.id}FunctionName`),
        // What happens after a grant is stored (test/infra/grant-pipeline.test.ts).
        ...CONSUMERS.map((c) => `${c.id}FunctionName`),
        'OfferMailDeadLettersQueueUrl',
        'GrantBatchRowsDeadLettersQueueUrl',
        'WebhooksDeadLettersQueueUrl',
        'GrantStreamFailuresQueueUrl',
        'GrantFiguresFailuresQueueUrl',
        'MailEventsDeadLettersQueueUrl',
        'MailConfigurationSet',
        // The user pool (test/infra/identity.test.ts checks their values).
        'UserPoolId',
        'UserPoolClientId',
        'UserPoolIssuer',
        // The console (test/infra/console-hosting.test.ts checks their values).
        'ConsoleUrl',
        'ConsoleDistributionDomainName',
      ].sort(),
    )
    expect(outputs.ApiKeysTable?.Value).toEqual({ Ref: logicalIdOfTable(prod.json, 'apiKeys') })
    expect(outputs.GrantTokensFunctionName?.Value).toEqual({ Ref: 'GrantTokensFunction' })
  })

  it('stays within CloudFormation’s 500 resources a stack, parent and nested alarms stack each, with every option on', () => {
    // A stack over the quota does not deploy at all, nested or not. A route's cost in the parent
    // and the management functions' nested stack: test/infra/stack-room.test.ts; its one alarm
    // goes to the nested alarms stack (docs/decisions/nested-alarms.md).
    const full = synth(CONTEXTS.everyOption)
    // The CDK CLI also adds its version report (CDKMetadata, one AWS::CDK::Metadata resource,
    // which CloudFormation counts) to the parent and to the nested template; these test synths
    // leave it out unless asked.
    const reported = synth({ 'aws:cdk:version-reporting': 'true' })
    for (const [t, plain] of [
      [reported.parent, prod.parent],
      [reported.alarms, prod.alarms],
      [reported.manageRaw, prod.manageRaw],
    ] as const) {
      expect(Object.keys(t.Resources).filter((id) => !Object.hasOwn(plain.Resources, id))).toEqual([
        'CDKMetadata',
      ])
      expect(t.Resources.CDKMetadata?.Type).toBe('AWS::CDK::Metadata')
    }
    const deployed = (t: CfnTemplate) =>
      Object.keys(t.Resources).length + (t.Resources.CDKMetadata ? 0 : 1)
    const parents = [prod.parent, dev.parent, full.parent].map(deployed)
    const nested = [prod.alarms, dev.alarms, full.alarms].map(deployed)
    for (const count of [...parents, ...nested]) expect(count).toBeLessThanOrEqual(500)
    // The figures docs/deploying.md gives, so the room left is stated from the templates.
    const page = readFileSync(join(PROJECT_ROOT, 'docs', 'deploying.md'), 'utf8')
    const section = page.split('\n### The 500-resource limit\n')[1]?.split('\n## ')[0] ?? ''
    const stated = section.match(
      /holds (\d+) on a plain deploy, (\d+) on an\s+ephemeral stage with an alarm e-mail and (\d+) with every\s+option on/,
    )
    expect(stated?.slice(1, 4).map(Number)).toEqual(parents)
    const statedNested = section.match(
      /nested alarms stack holds (\d+) on a plain deploy, (\d+) on an\s+ephemeral stage with an alarm e-mail and (\d+) with every\s+option on/,
    )
    expect(statedNested?.slice(1, 4).map(Number)).toEqual(nested)
    // Its parameters (what the alarms name from the parent), within CloudFormation's 200.
    const parameters = [prod, dev, full].map((s) => Object.keys(s.alarms.Parameters ?? {}).length)
    for (const count of parameters) expect(count).toBeLessThanOrEqual(TEMPLATE_PARAMETER_LIMIT)
    expect(new Set(parameters).size).toBe(1)
    const statedParameters = section.match(/takes (\d+) parameters of CloudFormation's 200/)
    expect(Number(statedParameters?.[1])).toBe(parameters[0])
  })

  it('gives each stage its own stack name and no fixed physical names, so stages coexist', () => {
    expect(prod.stackName).toBe('VirtualShares-prod')
    expect(dev.stackName).toBe('VirtualShares-dev')
    const named = JSON.stringify(dev.json).match(
      /"(TableName|FunctionName|LogGroupName|TopicName)":\s*"/g,
    )
    expect(named).toBeNull()
  })
})

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['prod', prod],
    ['dev with alarm e-mail', dev],
  ])('%s: no unacknowledged finding', (_, { nag }) => {
    // checkAwsSolutions ran on the stack as bin/app.ts runs it (test/support/synth.ts).
    expect(nag).toEqual([])
  })

  it('reaches the nested alarms stack: an unacknowledged error there fails the synth too', () => {
    // cdk-nag's validateScope walks the construct tree, nested stacks included, and a nested
    // resource's error annotation is reported with the parent stack, which `cdk synth` fails on.
    // CDK's CloudFormation linter (it cannot fail a synth) is off, as in test/support/synth.ts.
    const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Parent')
    const nested = new NestedStack(stack, 'Nested')
    new Topic(nested, 'Plain')
    const report = checkAwsSolutions(stack)
    expect(report.violations.map((v) => v.ruleName)).toContain('AwsSolutions-SNS3')
    Annotations.fromStack(stack).hasError(
      '/Parent/Nested/Plain/Resource',
      Match.stringLikeRegexp('AwsSolutions-SNS3'),
    )
  })

  it('would fail the synth on an unacknowledged error (the check is live)', () => {
    const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Bad')
    const role = new Role(stack, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    })
    role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:*'], resources: ['*'] }))
    checkAwsSolutions(stack)
    Annotations.fromStack(stack).hasError('*', Match.stringLikeRegexp('AwsSolutions-IAM5'))
  })
})
