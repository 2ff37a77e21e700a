import {
  BATCH_WORK,
  CONSUMERS,
  type ConsumerId,
  type ConsumerSpec,
  GRANT_BATCH_ROWS_QUEUE,
  GRANT_FIGURES_FAILURES,
  GRANT_STREAM_FAILURES,
  MAIL_EVENTS_DEAD_LETTERS,
  OFFER_MAIL_QUEUE,
  QUEUES,
  REQUEST_LOG_DEAD_LETTERS,
  STREAMS,
  WEBHOOKS_QUEUE,
} from '../../functions/consumers'
import { WEBHOOK_RETRY_SCHEDULE_SECONDS } from '../../functions/domain/webhooks'
import { ENV } from '../../functions/env-names'
import { ROUTES, type Route } from '../../functions/routes'
import { TABLES, type TableKey } from '../../functions/table-schema'
import {
  GRANT_BATCH_ROWS_MAX_AGE_SECONDS,
  OFFER_MAIL_MAX_AGE_SECONDS,
  QUEUE_MAX_AGE_SECONDS,
  STREAM_MAX_ITERATOR_AGE_MS,
  WEBHOOKS_MAX_AGE_SECONDS,
} from '../../lib/grant-pipeline'
import { TIME_TO_LIVE } from '../../lib/grant-tables'
import {
  type CfnResource,
  type CfnTemplate,
  CONTEXTS,
  resource,
  resourcesOfType,
  rolePolicies,
  synth,
} from '../support/synth'

// A plain `cdk deploy` (no SES identity), one with an SES identity in the stack's region, one with
// the identity in another region, and one with a custom console domain.
const prod = synth()
const mailing = synth(CONTEXTS.mailing)
const elsewhere = synth({
  stage: 'elsewhere',
  sesFromEmail: 'offers@mail.example.com',
  sesRegion: 'eu-west-1',
})
const custom = synth({
  consoleDomainName: 'Console.Example.com',
  consoleCertificateArn:
    'arn:aws:acm:us-east-1:123456789012:certificate/0f6c1d2e-3f4a-4b5c-8d9e-0a1b2c3d4e5f',
})

const consumer = (id: ConsumerId): ConsumerSpec => {
  const found = (CONSUMERS as readonly ConsumerSpec[]).find((c) => c.id === id)
  if (!found) throw new Error(`no consumer ${id}`)
  return found
}
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] })
const byRef = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))
/** A resource's logical id from its construct path's id (CDK adds an 8-digit hash). */
const idOf = (t: CfnTemplate, type: string, prefix: string) => {
  const found = resourcesOfType(t, type).filter(([id]) =>
    new RegExp(`^${prefix}[0-9A-F]{8}$`).test(id),
  )
  expect(found.map(([id]) => id)).toHaveLength(1)
  return (found[0] as [string, CfnResource])[0]
}
const queueId = (t: CfnTemplate, name: string) => idOf(t, 'AWS::SQS::Queue', `Pipeline${name}`)
const tableId = (t: CfnTemplate, key: TableKey) =>
  idOf(t, 'AWS::DynamoDB::Table', `Tables${key[0]?.toUpperCase()}${key.slice(1)}`)
const mappingsOf = (t: CfnTemplate, fnId: string) =>
  resourcesOfType(t, 'AWS::Lambda::EventSourceMapping')
    .map(([, m]) => m.Properties)
    .filter((p) => JSON.stringify(p.FunctionName) === JSON.stringify({ Ref: fnId }))
const variablesOf = (t: CfnTemplate, fnId: string) =>
  (resource(t, fnId).Properties.Environment as { Variables: Record<string, unknown> }).Variables

/** Every (action, resource) pair a function's role is allowed, as in test/infra/stack.test.ts. */
const grantsOf = (t: CfnTemplate, fnId: string) => {
  const roleId = (resource(t, fnId).Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]
  const pairs: string[] = []
  for (const [, policy] of rolePolicies(t)) {
    const roles = policy.Properties.Roles as { Ref: string }[]
    if (!roles.some((r) => r.Ref === roleId)) continue
    const doc = policy.Properties.PolicyDocument as {
      Statement: {
        Action: string | string[]
        Resource: unknown
        Effect: string
        Condition?: unknown
      }[]
    }
    for (const s of doc.Statement) {
      expect(s.Effect).toBe('Allow')
      // Only the webhook secrets' key (its encryption context: test/infra/webhook-secrets-key.test.ts)
      // and the rate-limit items of the API keys table (issue 33) are granted with a condition.
      if (![s.Action].flat().every((a) => a.startsWith('kms:'))) {
        expect([
          undefined,
          { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['rate#*'] } },
        ]).toContainEqual(s.Condition)
      }
      for (const action of [s.Action].flat()) {
        for (const res of [s.Resource].flat()) {
          const att = (res as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']
          pairs.push(`${action} ${att ? att.join('.') : JSON.stringify(res)}`)
        }
      }
    }
  }
  const role = t.Resources[roleId]
  expect(role?.Properties.ManagedPolicyArns).toBeUndefined()
  return pairs.sort()
}
const logs = (t: CfnTemplate, fnId: string) => {
  const group = (resource(t, fnId).Properties.LoggingConfig as { LogGroup: { Ref: string } })
    .LogGroup.Ref
  return [`logs:CreateLogStream ${group}.Arn`, `logs:PutLogEvents ${group}.Arn`]
}
/** What functions/consumers.ts declares for a consumer's tables and indexes, as grantsOf writes it. */
const declaredTables = (t: CfnTemplate, spec: ConsumerSpec) => [
  ...(Object.entries(spec.access) as [TableKey, string[]][]).flatMap(([table, actions]) =>
    actions.map((action) => `${action} ${tableId(t, table)}.Arn`),
  ),
  ...(
    Object.entries(spec.indexes ?? {}) as [TableKey, Record<string, readonly string[]>][]
  ).flatMap(([table, byIndex]) =>
    Object.entries(byIndex).flatMap(([index, actions]) =>
      actions.map(
        (action) =>
          `${action} ${JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId(t, table), 'Arn'] }, `/index/${index}`]] })}`,
      ),
    ),
  ),
]

describe('tables', () => {
  it('gives the grants table a stream of new and old images, and no other table one', () => {
    expect(STREAMS).toEqual({ grants: 'NEW_AND_OLD_IMAGES' })
    for (const key of Object.keys(TABLES) as TableKey[]) {
      const spec = resource(prod.json, tableId(prod.json, key)).Properties.StreamSpecification
      expect({ key, spec }).toEqual({
        key,
        spec: key === 'grants' ? { StreamViewType: 'NEW_AND_OLD_IMAGES' } : undefined,
      })
    }
  })

  it('expires link tokens, rate limits, timers, TEST inbox messages, webhook messages, counted-grant markers, request log entries and the rate buckets of idle keys by `purgeAt`, and nothing else', () => {
    expect(TIME_TO_LIVE).toEqual({
      apiKeys: 'purgeAt',
      grants: 'purgeAt',
      timers: 'purgeAt',
      inbox: 'purgeAt',
      webhooks: 'purgeAt',
      figures: 'purgeAt',
      requests: 'purgeAt',
    })
    for (const key of Object.keys(TABLES) as TableKey[]) {
      const ttl = resource(prod.json, tableId(prod.json, key)).Properties.TimeToLiveSpecification
      expect({ key, ttl }).toEqual({
        key,
        ttl: ['apiKeys', 'grants', 'timers', 'inbox', 'webhooks', 'figures', 'requests'].includes(
          key,
        )
          ? { AttributeName: 'purgeAt', Enabled: true }
          : undefined,
      })
    }
  })

  it('builds the timers and inbox tables and the grants index byRecipient from table-schema.ts', () => {
    const keys = (key: TableKey) =>
      resource(prod.json, tableId(prod.json, key)).Properties.KeySchema as unknown[]
    expect(keys('timers')).toEqual([
      { AttributeName: 'slot', KeyType: 'HASH' },
      { AttributeName: 'due', KeyType: 'RANGE' },
    ])
    expect(keys('inbox')).toEqual([
      { AttributeName: 'issuerId', KeyType: 'HASH' },
      { AttributeName: 'messageId', KeyType: 'RANGE' },
    ])
    const indexes = resource(prod.json, tableId(prod.json, 'grants')).Properties
      .GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown }[]
    expect(indexes.find((i) => i.IndexName === 'byRecipient')?.KeySchema).toEqual([
      { AttributeName: 'recipientKey', KeyType: 'HASH' },
      { AttributeName: 'createdAt', KeyType: 'RANGE' },
    ])
  })
})

/** Grant items only: both readers' first filter. */
const GRANT_ITEMS_FILTER = {
  Pattern: JSON.stringify({ dynamodb: { Keys: { grantId: { S: [{ prefix: 'gr_' }] } } } }),
}
/**
 * A stream reader's event source's own grants: the grants stream's records, and its on-failure
 * destination (IAM has no resource for ListStreams: acknowledged in cdk-nag).
 */
const eventSourceGrants = (t: CfnTemplate, failures: string) => {
  const grants = tableId(t, 'grants')
  const queue = queueId(t, failures)
  return [
    `dynamodb:DescribeStream ${grants}.StreamArn`,
    `dynamodb:GetRecords ${grants}.StreamArn`,
    `dynamodb:GetShardIterator ${grants}.StreamArn`,
    'dynamodb:ListStreams "*"',
    `sqs:SendMessage ${queue}.Arn`,
    `sqs:GetQueueAttributes ${queue}.Arn`,
    `sqs:GetQueueUrl ${queue}.Arn`,
  ]
}
/** A function's one event source mapping. */
const onlyMappingOf = (t: CfnTemplate, fnId: string) => {
  const mappings = mappingsOf(t, fnId)
  expect(mappings).toHaveLength(1)
  return mappings[0]
}
/** What both readers' mappings share: the stream, retries bounded, bisection, partial failures. */
const streamMapping = (t: CfnTemplate, id: ConsumerId) => {
  const trigger = consumer(id).trigger as Extract<ConsumerSpec['trigger'], { kind: 'stream' }>
  return {
    FunctionName: { Ref: `${id}Function` },
    EventSourceArn: getAtt(tableId(t, 'grants'), 'StreamArn'),
    StartingPosition: 'TRIM_HORIZON',
    MaximumBatchingWindowInSeconds: trigger.maxBatchingWindowSeconds,
    // Bounded: a poison record cannot hold its shard for the stream's 24 hours.
    MaximumRetryAttempts: 10,
    BisectBatchOnFunctionError: true,
    FunctionResponseTypes: ['ReportBatchItemFailures'],
    DestinationConfig: { OnFailure: { Destination: getAtt(queueId(t, trigger.onFailure), 'Arn') } },
  }
}

describe('the grants stream and its reader', () => {
  const t = prod.json
  const spec = consumer('GrantStream')

  it('maps the stream to GrantStream with the list’s batch, parallelization, retry bound, bisection and partial failures', () => {
    expect(onlyMappingOf(t, 'GrantStreamFunction')).toEqual({
      ...streamMapping(t, 'GrantStream'),
      DestinationConfig: {
        OnFailure: { Destination: getAtt(queueId(t, GRANT_STREAM_FAILURES), 'Arn') },
      },
      // 4 concurrent batches of 50 per shard: what keeps the iterator age under 5 s at 2,000
      // grants a second in the contention model (docs/performance.md, "The stream reader"); one
      // batch of 100 at a time per shard fell behind there.
      BatchSize: 50,
      ParallelizationFactor: 4,
      FilterCriteria: {
        Filters: [
          GRANT_ITEMS_FILTER,
          // A finished batch (batch.completed); never its chunks or its running counters.
          {
            Pattern: JSON.stringify({
              dynamodb: {
                NewImage: { itemType: { S: ['grantBatch'] }, status: { S: ['done', 'canceled'] } },
              },
            }),
          },
          // A program's value set (program.value_changed): its outbox item when put, never purged.
          {
            Pattern: JSON.stringify({
              eventName: ['INSERT'],
              dynamodb: { NewImage: { itemType: { S: ['programValue'] } } },
            }),
          },
        ],
      },
    })
    // Retried, then given up on into a queue kept as long as SQS keeps anything.
    expect(resource(t, queueId(t, GRANT_STREAM_FAILURES)).Properties.MessageRetentionPeriod).toBe(
      14 * 24 * 3600,
    )
  })

  it('has two readers at most, GrantStream and GrantFigures (a shard throttles more than two)', () => {
    const readers = resourcesOfType(t, 'AWS::Lambda::EventSourceMapping').filter(
      ([, m]) =>
        JSON.stringify(m.Properties.EventSourceArn) ===
        JSON.stringify(getAtt(tableId(t, 'grants'), 'StreamArn')),
    )
    expect(readers.map(([, m]) => m.Properties.FunctionName).sort(byRef)).toEqual([
      { Ref: 'GrantFiguresFunction' },
      { Ref: 'GrantStreamFunction' },
    ])
  })

  it('gives GrantStream no access to the figures (GrantFigures keeps them)', () => {
    expect(spec.access).not.toHaveProperty('figures')
    const figures = tableId(t, 'figures')
    expect(grantsOf(t, 'GrantStreamFunction').filter((g) => g.includes(figures))).toEqual([])
  })

  it('may read the stream, write timers, send to OfferMail and Webhooks and record a failed batch, nothing else', () => {
    const offerMail = queueId(t, OFFER_MAIL_QUEUE.id)
    const webhooks = queueId(t, WEBHOOKS_QUEUE.id)
    expect(grantsOf(t, 'GrantStreamFunction')).toEqual(
      [
        ...logs(t, 'GrantStreamFunction'),
        ...declaredTables(t, spec),
        // Only SendMessage on the queues it feeds (SendMessageBatch is authorised by it).
        `sqs:SendMessage ${offerMail}.Arn`,
        `sqs:SendMessage ${webhooks}.Arn`,
        ...eventSourceGrants(t, GRANT_STREAM_FAILURES),
      ].sort(),
    )
    expect(variablesOf(t, 'GrantStreamFunction')[OFFER_MAIL_QUEUE.urlVariable]).toEqual({
      Ref: offerMail,
    })
    expect(variablesOf(t, 'GrantStreamFunction')[WEBHOOKS_QUEUE.urlVariable]).toEqual({
      Ref: webhooks,
    })
  })

  // Each reaches the alarm topic when one is configured (test/infra/alarms.test.ts: every alarm).
  it('alarms when either reader falls behind the stream', () => {
    const alarms = alarmsOf(prod.alarms).filter((a) => a.MetricName === 'IteratorAge')
    const readers = CONSUMERS.filter((c) => c.trigger.kind === 'stream').map((c) => c.id)
    expect(readers).toEqual(['GrantStream', 'GrantFigures'])
    expect(alarms).toHaveLength(readers.length)
    for (const id of readers) {
      expect(
        alarms.find(
          (a) =>
            JSON.stringify(a.Dimensions?.[0]?.Value) === JSON.stringify({ Ref: `${id}Function` }),
        ),
      ).toMatchObject({
        Namespace: 'AWS/Lambda',
        Statistic: 'Maximum',
        Threshold: STREAM_MAX_ITERATOR_AGE_MS,
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: `${id}Function` } }],
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      })
    }
  })
})

describe('the grants stream’s second reader, GrantFigures', () => {
  const t = prod.json
  const spec = consumer('GrantFigures')

  it('maps the stream to GrantFigures, grant items only, with its own failure queue kept 14 days', () => {
    const mapping = onlyMappingOf(t, 'GrantFiguresFunction')
    expect(mapping).toEqual({
      ...streamMapping(t, 'GrantFigures'),
      // Batches of 100: fewer BatchGetItems and transactions per record (functions/consumers.ts).
      BatchSize: 100,
      ParallelizationFactor: 4,
      FilterCriteria: { Filters: [GRANT_ITEMS_FILTER] },
    })
    expect(mapping?.DestinationConfig).toEqual({
      OnFailure: { Destination: getAtt(queueId(t, GRANT_FIGURES_FAILURES), 'Arn') },
    })
    expect(resource(t, queueId(t, GRANT_FIGURES_FAILURES)).Properties.MessageRetentionPeriod).toBe(
      14 * 24 * 3600,
    )
  })

  it('may read the stream, read and update the figures and record a failed batch, nothing else', () => {
    const figures = tableId(t, 'figures')
    expect(spec.access).toEqual({ figures: ['dynamodb:BatchGetItem', 'dynamodb:UpdateItem'] })
    expect(grantsOf(t, 'GrantFiguresFunction')).toEqual(
      [
        ...logs(t, 'GrantFiguresFunction'),
        `dynamodb:BatchGetItem ${figures}.Arn`,
        `dynamodb:UpdateItem ${figures}.Arn`,
        ...eventSourceGrants(t, GRANT_FIGURES_FAILURES),
      ].sort(),
    )
    // No queue to send to: no queue URL in its environment.
    for (const q of QUEUES) {
      expect(variablesOf(t, 'GrantFiguresFunction')[q.urlVariable]).toBeUndefined()
    }
  })
})

describe('the offer mail queue and OfferMailer', () => {
  const t = prod.json
  const spec = consumer('OfferMailer')
  const trigger = spec.trigger as Extract<ConsumerSpec['trigger'], { kind: 'queue' }>

  it('redrives a message received 5 times to its dead letters, kept 14 days', () => {
    const queue = resource(t, queueId(t, OFFER_MAIL_QUEUE.id)).Properties
    const deadLetters = queueId(t, OFFER_MAIL_QUEUE.deadLetter.id)
    expect(queue).toMatchObject({
      RedrivePolicy: {
        deadLetterTargetArn: getAtt(deadLetters, 'Arn'),
        maxReceiveCount: OFFER_MAIL_QUEUE.maxReceiveCount,
      },
      MessageRetentionPeriod: OFFER_MAIL_QUEUE.retentionSeconds,
      SqsManagedSseEnabled: true,
    })
    expect(resource(t, deadLetters).Properties).toEqual({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    })
  })

  it('keeps a received message invisible at least six times the consumer’s timeout', () => {
    const visibility = resource(t, queueId(t, OFFER_MAIL_QUEUE.id)).Properties.VisibilityTimeout
    const timeout = resource(t, 'OfferMailerFunction').Properties.Timeout as number
    expect(timeout).toBe(spec.timeoutSeconds)
    expect(visibility).toBe(OFFER_MAIL_QUEUE.visibilityTimeoutSeconds)
    expect(visibility).toBeGreaterThanOrEqual(6 * timeout)
  })

  it('feeds OfferMailer in batches, reporting failed items, two invocations at most', () => {
    const mappings = mappingsOf(t, 'OfferMailerFunction')
    expect(mappings).toEqual([
      {
        FunctionName: { Ref: 'OfferMailerFunction' },
        EventSourceArn: getAtt(queueId(t, OFFER_MAIL_QUEUE.id), 'Arn'),
        BatchSize: trigger.batchSize,
        MaximumBatchingWindowInSeconds: trigger.maxBatchingWindowSeconds,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: 2 },
      },
    ])
  })

  it('requires TLS on every queue', () => {
    for (const [id] of resourcesOfType(t, 'AWS::SQS::Queue')) {
      const policy = resourcesOfType(t, 'AWS::SQS::QueuePolicy').find(([, p]) =>
        JSON.stringify(p.Properties.Queues).includes(`"${id}"`),
      )
      expect({ id, statements: policy?.[1].Properties.PolicyDocument }).toMatchObject({
        id,
        statements: {
          Statement: expect.arrayContaining([
            expect.objectContaining({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      })
    }
  })

  it('without an SES identity: its tables and its queue only, no SES, and the synth warns', () => {
    const fnId = 'OfferMailerFunction'
    expect(grantsOf(t, fnId)).toEqual(
      [
        ...logs(t, fnId),
        ...declaredTables(t, spec),
        ...[
          'ReceiveMessage',
          'ChangeMessageVisibility',
          'GetQueueUrl',
          'DeleteMessage',
          'GetQueueAttributes',
        ].map((action) => `sqs:${action} ${queueId(t, OFFER_MAIL_QUEUE.id)}.Arn`),
      ].sort(),
    )
    expect(Object.keys(variablesOf(t, fnId))).not.toContain(ENV.mailFrom)
    expect(prod.warnings).toContainEqual({
      level: 'warning',
      path: '/VirtualShares-prod/Pipeline/OfferMailer',
      text: expect.stringMatching(/LIVE offer e-mails will not be sent.*sesFromEmail/),
    })
  })

  it('with an SES identity: ses:SendEmail on the identity and the configuration set only', () => {
    const m = mailing.json
    const fnId = 'OfferMailerFunction'
    const configurationSet = idOf(m, 'AWS::SES::ConfigurationSet', 'PipelineMailConfigurationSet')
    const sesArn = (rest: unknown[]) =>
      JSON.stringify({
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':ses:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ...rest,
          ],
        ],
      })
    const ses = grantsOf(m, fnId).filter((pair) => pair.startsWith('ses:'))
    expect(ses).toEqual(
      [
        `ses:SendEmail ${sesArn([':identity/offers@mail.example.com'])}`,
        `ses:SendEmail ${sesArn([':identity/mail.example.com'])}`,
        `ses:SendEmail ${sesArn([':configuration-set/', { Ref: configurationSet }])}`,
        // The account's sending rate, which the mailer paces itself by (IAM has no resource).
        'ses:GetAccount "*"',
      ].sort(),
    )
    expect(variablesOf(m, fnId)).toMatchObject({
      [ENV.mailFrom]: 'offers@mail.example.com',
      [ENV.mailConfigurationSet]: { Ref: configurationSet },
    })
    expect(variablesOf(m, fnId)[ENV.mailSesRegion]).toBeUndefined()
    // No other function may send with it but the batch worker (the committer's notice) and the
    // webhook sender (an endpoint disabled after failing for days, to the issuer's owners): their
    // bounces reach MailEvents, which finds no grant tag on them and ignores them.
    for (const [id, fn] of resourcesOfType(m, 'AWS::Lambda::Function')) {
      if (['GrantBatchWorkerFunction', 'WebhookSenderFunction', fnId].includes(id)) continue
      expect({ id, set: JSON.stringify(fn.Properties.Environment ?? {}) }).toEqual({
        id,
        set: expect.not.stringContaining(ENV.mailConfigurationSet),
      })
    }
  })

  it('with an identity in another region: sends there without the configuration set, and says bounces are lost', () => {
    const e = elsewhere.json
    const ses = grantsOf(e, 'OfferMailerFunction').filter((pair) => pair.startsWith('ses:Send'))
    expect(ses).toHaveLength(2)
    for (const pair of ses) expect(pair).toMatch(/eu-west-1.*:identity\//)
    expect(variablesOf(e, 'OfferMailerFunction')).toMatchObject({
      [ENV.mailFrom]: 'offers@mail.example.com',
      [ENV.mailSesRegion]: 'eu-west-1',
    })
    expect(variablesOf(e, 'OfferMailerFunction')[ENV.mailConfigurationSet]).toBeUndefined()
    expect(elsewhere.warnings).toContainEqual({
      level: 'warning',
      path: '/VirtualShares-elsewhere/Pipeline/OfferMailer',
      text: expect.stringMatching(/bounces and complaints do not reach the service/),
    })
  })

  it('links offers to the console’s own origin, which serves /offer', () => {
    const distribution = resourcesOfType(t, 'AWS::CloudFront::Distribution')[0]?.[0] as string
    expect(variablesOf(t, 'OfferMailerFunction')[ENV.recipientOrigin]).toEqual({
      'Fn::Join': ['', ['https://', getAtt(distribution, 'DomainName')]],
    })
    expect(variablesOf(custom.json, 'OfferMailerFunction')[ENV.recipientOrigin]).toBe(
      'https://console.example.com',
    )
    // Only where links are rendered: the mailer, and the routes that say so (an offer's preview).
    for (const id of ['GrantStreamFunction', 'MailEventsFunction', 'OfferSweepFunction']) {
      expect(variablesOf(t, id)[ENV.recipientOrigin]).toBeUndefined()
    }
    const linking = (ROUTES as readonly (Route & { recipientLinks?: boolean })[]).filter(
      (r) => r.recipientLinks,
    )
    expect(linking.map((r) => r.id)).toContain('OfferPreview')
    for (const route of ROUTES as readonly (Route & { recipientLinks?: boolean })[]) {
      expect({
        id: route.id,
        origin: variablesOf(t, `${route.id}Function`)[ENV.recipientOrigin],
      }).toEqual({
        id: route.id,
        origin: route.recipientLinks
          ? variablesOf(t, 'OfferMailerFunction')[ENV.recipientOrigin]
          : undefined,
      })
    }
  })

  it('alarms on every work queue’s oldest message at its own threshold, and on any message in a dead-letter queue', () => {
    const queueName = (name: string) => getAtt(queueId(t, name), 'QueueName')
    const age = alarmsOf(prod.alarms).filter(
      (a) => a.MetricName === 'ApproximateAgeOfOldestMessage',
    )
    // An offer an hour late; a batch's chunk 15 minutes unclaimed; a webhook message half an hour
    // past due (lib/grant-pipeline.ts says why).
    expect(QUEUE_MAX_AGE_SECONDS).toEqual({
      OfferMail: OFFER_MAIL_MAX_AGE_SECONDS,
      GrantBatchRows: GRANT_BATCH_ROWS_MAX_AGE_SECONDS,
      Webhooks: WEBHOOKS_MAX_AGE_SECONDS,
    })
    expect(OFFER_MAIL_MAX_AGE_SECONDS).toBe(3_600)
    expect(GRANT_BATCH_ROWS_MAX_AGE_SECONDS).toBe(900)
    expect(age).toEqual(
      expect.arrayContaining(
        QUEUES.map((q) =>
          expect.objectContaining({
            Namespace: 'AWS/SQS',
            Statistic: 'Maximum',
            Threshold: QUEUE_MAX_AGE_SECONDS[q.id as keyof typeof QUEUE_MAX_AGE_SECONDS],
            ComparisonOperator: 'GreaterThanOrEqualToThreshold',
            Dimensions: [{ Name: 'QueueName', Value: queueName(q.id) }],
          }),
        ),
      ),
    )
    expect(age).toHaveLength(QUEUES.length)
    // Each threshold is well inside what the queue keeps (a message older is gone).
    for (const q of QUEUES) {
      expect(QUEUE_MAX_AGE_SECONDS[q.id as keyof typeof QUEUE_MAX_AGE_SECONDS]).toBeLessThan(
        q.retentionSeconds / 10,
      )
    }
    const depth = alarmsOf(prod.alarms).filter(
      (a) => a.MetricName === 'ApproximateNumberOfMessagesVisible',
    )
    const deadLetters = [
      ...QUEUES.map((q) => q.deadLetter.id),
      GRANT_STREAM_FAILURES,
      GRANT_FIGURES_FAILURES,
      MAIL_EVENTS_DEAD_LETTERS,
      REQUEST_LOG_DEAD_LETTERS,
    ]
    expect(deadLetters).toContain(GRANT_BATCH_ROWS_QUEUE.deadLetter.id)
    expect(depth.map((a) => a.Dimensions)).toEqual(
      expect.arrayContaining(
        deadLetters.map((name) => [{ Name: 'QueueName', Value: queueName(name) }]),
      ),
    )
    expect(depth).toHaveLength(deadLetters.length)
    for (const a of depth) {
      expect(a).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      })
    }
  })
})

describe('send to many: the GrantBatchRows queue and GrantBatchWorker', () => {
  const t = prod.json
  const spec = consumer('GrantBatchWorker')
  const trigger = spec.trigger as Extract<ConsumerSpec['trigger'], { kind: 'queue' }>
  const rows = () => queueId(t, GRANT_BATCH_ROWS_QUEUE.id)

  it('redrives a chunk received 8 times to its dead letters, kept 14 days; the queue keeps 4 days', () => {
    const deadLetters = queueId(t, GRANT_BATCH_ROWS_QUEUE.deadLetter.id)
    expect(resource(t, rows()).Properties).toEqual({
      RedrivePolicy: { deadLetterTargetArn: getAtt(deadLetters, 'Arn'), maxReceiveCount: 8 },
      MessageRetentionPeriod: 4 * 24 * 3600,
      VisibilityTimeout: GRANT_BATCH_ROWS_QUEUE.visibilityTimeoutSeconds,
      SqsManagedSseEnabled: true,
    })
    expect(resource(t, deadLetters).Properties).toEqual({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    })
  })

  it('keeps a received chunk invisible at least six times the worker’s timeout', () => {
    const visibility = resource(t, rows()).Properties.VisibilityTimeout as number
    const timeout = resource(t, 'GrantBatchWorkerFunction').Properties.Timeout as number
    expect(timeout).toBe(spec.timeoutSeconds)
    expect(visibility).toBeGreaterThanOrEqual(6 * timeout)
  })

  it('starts the worker from the queue only: two chunks an invocation, partial batch responses, at most BATCH_WORK.maxConcurrency at once', () => {
    expect(trigger.queue).toBe(GRANT_BATCH_ROWS_QUEUE.id)
    expect(mappingsOf(t, 'GrantBatchWorkerFunction')).toEqual([
      {
        FunctionName: { Ref: 'GrantBatchWorkerFunction' },
        EventSourceArn: getAtt(rows(), 'Arn'),
        BatchSize: 2,
        MaximumBatchingWindowInSeconds: 0,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: BATCH_WORK.maxConcurrency },
      },
    ])
    // Lambda's floor for an SQS mapping's maximum concurrency is 2.
    expect(BATCH_WORK.maxConcurrency).toBeGreaterThanOrEqual(2)
    // Nothing else starts it: no permission for a caller, no schedule, no subscription, and no
    // asynchronous-invoke configuration (the old self-invoked worker's).
    for (const type of ['AWS::Lambda::Permission', 'AWS::Events::Rule', 'AWS::SNS::Subscription']) {
      expect({
        type,
        naming: resourcesOfType(t, type).filter(([, r]) =>
          JSON.stringify(r.Properties).includes('GrantBatchWorkerFunction'),
        ),
      }).toEqual({ type, naming: [] })
    }
    expect(
      resourcesOfType(t, 'AWS::Lambda::EventInvokeConfig').filter(([, r]) =>
        JSON.stringify(r.Properties).includes('GrantBatchWorkerFunction'),
      ),
    ).toEqual([])
  })

  it('lets the worker consume its queue and use its tables, nothing else: no lambda:InvokeFunction, no send', () => {
    const fnId = 'GrantBatchWorkerFunction'
    const consume = [
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueUrl',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ].map((action) => `${action} ${rows()}.Arn`)
    expect(grantsOf(t, fnId)).toEqual(
      [...logs(t, fnId), ...declaredTables(t, spec), ...consume].sort(),
    )
    expect(JSON.stringify(grantsOf(t, fnId))).not.toMatch(/lambda:|sqs:SendMessage/)
    // With an SES identity: the committer's notice, sent on the identity and configuration set
    // only; not the offer mailer's ses:GetAccount (one notice a batch is not paced).
    const ses = grantsOf(mailing.json, fnId).filter((g) => g.startsWith('ses:'))
    expect(ses).toHaveLength(3)
    expect(ses.every((g) => g.startsWith('ses:SendEmail '))).toBe(true)
    expect(JSON.stringify(ses)).toContain('configuration-set/')
  })

  it('tells the worker the console’s address, for the link in the committer’s notice', () => {
    expect(variablesOf(t, 'GrantBatchWorkerFunction')[ENV.consoleUrl]).toEqual({
      'Fn::Join': [
        '',
        [
          'https://',
          getAtt(idOf(t, 'AWS::CloudFront::Distribution', 'ConsoleDistribution'), 'DomainName'),
          '/app/',
        ],
      ],
    })
    expect(variablesOf(mailing.json, 'GrantBatchWorkerFunction')).toMatchObject({
      [ENV.mailFrom]: 'offers@mail.example.com',
    })
  })

  it('lets CreateGrantBatch and CancelGrantBatch send to GrantBatchRows, with its URL, and nothing else on a queue', () => {
    // The commit sends a batch's chunks; a cancel sends a stalled batch's chunks again.
    const senders = ['CreateGrantBatch', 'CancelGrantBatch']
    for (const id of senders) {
      const fnId = `${id}Function`
      const route = (ROUTES as readonly Route[]).find((r) => r.id === id)
      expect(route?.sends).toEqual([GRANT_BATCH_ROWS_QUEUE.id])
      expect(grantsOf(t, fnId).filter((g) => /^(sqs|lambda):/.test(g))).toEqual([
        `sqs:SendMessage ${rows()}.Arn`,
      ])
      expect(variablesOf(t, fnId)[GRANT_BATCH_ROWS_QUEUE.urlVariable]).toEqual({ Ref: rows() })
    }
    // No other route sends to GrantBatchRows; each sends (and holds the URL of) only the queues
    // it declares (the webhook routes: Webhooks, below).
    for (const other of ROUTES as readonly Route[]) {
      if (senders.includes(other.id)) continue
      expect({ id: other.id, sends: other.sends ?? [] }).toEqual({
        id: other.id,
        sends: expect.not.arrayContaining([GRANT_BATCH_ROWS_QUEUE.id]),
      })
      expect({
        id: other.id,
        grants: grantsOf(t, `${other.id}Function`).filter((g) => /^(sqs|lambda):/.test(g)),
      }).toEqual({
        id: other.id,
        grants: (other.sends ?? []).map((q) => `sqs:SendMessage ${queueId(t, q)}.Arn`),
      })
      expect(variablesOf(t, `${other.id}Function`)[GRANT_BATCH_ROWS_QUEUE.urlVariable]).toBe(
        undefined,
      )
    }
  })

  it('sends the queue’s alarms to the stage’s alarm topic, with the others', () => {
    // The alarms and their topic sit in the nested alarms stack (lib/alarms-stack.ts).
    const dev = synth(CONTEXTS.dev).alarms
    const [topic] = resourcesOfType(dev, 'AWS::SNS::Topic').filter(([id]) =>
      id.startsWith('Alarms'),
    )
    const queueAlarms = resourcesOfType(dev, 'AWS::CloudWatch::Alarm').filter(([id]) =>
      /^Alarms(GrantBatchRowsOldestMessage|GrantBatchRowsDeadLettersDepth|GrantBatchWorkerErrorsOrThrottles)/.test(
        id,
      ),
    )
    expect(queueAlarms).toHaveLength(3)
    for (const [, a] of queueAlarms) {
      expect(a.Properties).toMatchObject({
        AlarmActions: [{ Ref: topic?.[0] }],
        OKActions: [{ Ref: topic?.[0] }],
      })
    }
  })
})

describe('SES events: configuration set -> SNS -> MailEvents', () => {
  const t = prod.json
  const spec = consumer('MailEvents')

  it('publishes bounces and complaints (only) of the configuration set to the topic', () => {
    const set = idOf(t, 'AWS::SES::ConfigurationSet', 'PipelineMailConfigurationSet')
    const topic = idOf(t, 'AWS::SNS::Topic', 'PipelineMailEventsTopic')
    const [, destination] = resourcesOfType(t, 'AWS::SES::ConfigurationSetEventDestination')[0] as [
      string,
      CfnResource,
    ]
    expect(destination.Properties).toEqual({
      ConfigurationSetName: { Ref: set },
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: ['bounce', 'complaint'],
        SnsDestination: { TopicARN: { Ref: topic } },
      },
    })
    // SES may publish, for this account's configuration set only; nobody without TLS.
    const [, policy] = resourcesOfType(t, 'AWS::SNS::TopicPolicy')[0] as [string, CfnResource]
    const statements = (
      policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
    ).Statement
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Allow',
          Action: 'sns:Publish',
          Principal: { Service: 'ses.amazonaws.com' },
          Condition: {
            StringEquals: {
              'AWS:SourceAccount': { Ref: 'AWS::AccountId' },
              'AWS:SourceArn': expect.objectContaining({
                'Fn::Join': ['', expect.arrayContaining([':configuration-set/', { Ref: set }])],
              }),
            },
          },
        }),
        expect.objectContaining({
          Effect: 'Deny',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      ]),
    )
    expect(resource(t, set).Properties.SuppressionOptions).toEqual({
      SuppressedReasons: ['BOUNCE', 'COMPLAINT'],
    })
  })

  it('invokes MailEvents from the topic, retries twice, then keeps the event in its dead letters', () => {
    const topic = idOf(t, 'AWS::SNS::Topic', 'PipelineMailEventsTopic')
    expect(
      resourcesOfType(t, 'AWS::SNS::Subscription').map(([, s]) => s.Properties),
    ).toContainEqual({
      Protocol: 'lambda',
      TopicArn: { Ref: topic },
      Endpoint: getAtt('MailEventsFunction', 'Arn'),
    })
    expect(
      resourcesOfType(t, 'AWS::Lambda::Permission')
        .map(([, p]) => p.Properties)
        .filter((p) => JSON.stringify(p.FunctionName).includes('MailEventsFunction')),
    ).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: getAtt('MailEventsFunction', 'Arn'),
        Principal: 'sns.amazonaws.com',
        SourceArn: { Ref: topic },
      },
    ])
    const [, config] = resourcesOfType(t, 'AWS::Lambda::EventInvokeConfig')[0] as [
      string,
      CfnResource,
    ]
    expect(config.Properties).toEqual({
      FunctionName: { Ref: 'MailEventsFunction' },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      DestinationConfig: {
        OnFailure: { Destination: getAtt(queueId(t, MAIL_EVENTS_DEAD_LETTERS), 'Arn') },
      },
    })
  })

  it('lets MailEvents update grants and record a failed event, nothing else', () => {
    const deadLetters = queueId(t, MAIL_EVENTS_DEAD_LETTERS)
    expect(grantsOf(t, 'MailEventsFunction')).toEqual(
      [
        ...logs(t, 'MailEventsFunction'),
        ...declaredTables(t, spec),
        ...['SendMessage', 'GetQueueAttributes', 'GetQueueUrl'].map(
          (action) => `sqs:${action} ${deadLetters}.Arn`,
        ),
      ].sort(),
    )
  })
})

describe('the sweep', () => {
  const t = prod.json
  const spec = consumer('OfferSweep')

  it('runs OfferSweep every minute from EventBridge, without retries (the next run follows)', () => {
    const [ruleId, rule] = resourcesOfType(t, 'AWS::Events::Rule')[0] as [string, CfnResource]
    expect(rule.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        {
          Arn: getAtt('OfferSweepFunction', 'Arn'),
          RetryPolicy: { MaximumRetryAttempts: 0 },
        },
      ],
    })
    expect(
      resourcesOfType(t, 'AWS::Lambda::Permission')
        .map(([, p]) => p.Properties)
        .filter((p) => JSON.stringify(p.FunctionName).includes('OfferSweepFunction')),
    ).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: getAtt('OfferSweepFunction', 'Arn'),
        Principal: 'events.amazonaws.com',
        SourceArn: getAtt(ruleId, 'Arn'),
      },
    ])
  })

  it('may query and delete timers and move grants and programs, nothing else', () => {
    expect(grantsOf(t, 'OfferSweepFunction')).toEqual(
      [...logs(t, 'OfferSweepFunction'), ...declaredTables(t, spec)].sort(),
    )
  })
})

describe('every consumer', () => {
  it.each(CONSUMERS.map((c) => c.id))(
    '%s: nodejs24.x on arm64, its timeout and memory, its own log group, the tables’ names',
    (id) => {
      const spec = consumer(id)
      const fn = resource(prod.json, `${id}Function`)
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Timeout: spec.timeoutSeconds,
        MemorySize: spec.memorySize,
      })
      const variables = variablesOf(prod.json, `${id}Function`)
      for (const key of Object.keys(TABLES) as TableKey[]) {
        expect(variables).toHaveProperty(
          `${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}_TABLE`,
        )
      }
      expect(prod.json.Outputs[`${id}FunctionName`]?.Value).toEqual({ Ref: `${id}Function` })
    },
  )

  it('has no unacknowledged cdk-nag finding, with or without an SES identity', () => {
    // checkAwsSolutions ran on each stack as bin/app.ts runs it (test/support/synth.ts).
    for (const { nag } of [mailing, elsewhere]) expect(nag).toEqual([])
  })
})

describe('webhooks: the webhooks table, the Webhooks queue and WebhookSender', () => {
  const t = prod.json
  const spec = consumer('WebhookSender')
  const trigger = spec.trigger as Extract<ConsumerSpec['trigger'], { kind: 'queue' }>
  const queue = () => queueId(t, WEBHOOKS_QUEUE.id)
  const deadLetters = () => queueId(t, WEBHOOKS_QUEUE.deadLetter.id)

  it('builds the webhooks table from table-schema.ts: string pk/sk, TTL on purgeAt, PITR, kept with the stage', () => {
    const table = resource(t, tableId(t, 'webhooks'))
    expect(table.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: TABLES.webhooks.partitionKey.name, KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: expect.arrayContaining([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]),
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'purgeAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
    })
    expect(TABLES.webhooks.partitionKey).toEqual({ name: 'pk', type: 'S' })
    expect(table.DeletionPolicy).toBe('Retain')
  })

  it('alarms on the webhooks table’s throttles and system errors, over every operation its functions may call', () => {
    const ref = JSON.stringify({ Ref: tableId(t, 'webhooks') })
    const onTable = resourcesOfType(prod.alarms, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
      JSON.stringify(a.Properties.Metrics ?? a.Properties.Dimensions ?? []).includes(ref),
    )
    const metrics = onTable.map(
      ([, a]) => JSON.stringify(a.Properties.Metrics).match(/"MetricName":"(\w+)"/)?.[1],
    )
    // ReadThrottleEvents: the alarm over read and write throttle events (test/infra/alarms.test.ts).
    expect(metrics.sort()).toEqual(['ReadThrottleEvents', 'SystemErrors', 'ThrottledRequests'])
    // The sender's own calls among the per-operation ones (Query for endpoints and replays,
    // PutItem for messages).
    const perOperation = onTable.filter(([, a]) =>
      JSON.stringify(a.Properties.Metrics).includes('"Name":"Operation"'),
    )
    expect(perOperation).toHaveLength(2)
    for (const [, a] of perOperation) {
      expect(JSON.stringify(a.Properties.Metrics)).toMatch(/"Value":"Query"/)
      expect(JSON.stringify(a.Properties.Metrics)).toMatch(/"Value":"PutItem"/)
    }
  })

  it('keeps messages 4 days, past the retry horizon (about 3 days), and redrives one received 5 times to its dead letters, kept 14 days', () => {
    expect(resource(t, queue()).Properties).toEqual({
      RedrivePolicy: {
        deadLetterTargetArn: getAtt(deadLetters(), 'Arn'),
        maxReceiveCount: WEBHOOKS_QUEUE.maxReceiveCount,
      },
      MessageRetentionPeriod: 4 * 24 * 3600,
      VisibilityTimeout: WEBHOOKS_QUEUE.visibilityTimeoutSeconds,
      SqsManagedSseEnabled: true,
    })
    expect(resource(t, deadLetters()).Properties).toEqual({
      MessageRetentionPeriod: 14 * 24 * 3600,
      SqsManagedSseEnabled: true,
    })
    const horizon = WEBHOOK_RETRY_SCHEDULE_SECONDS.reduce((sum, s) => sum + s, 0)
    expect(horizon).toBeGreaterThan(2.5 * 24 * 3600)
    expect(WEBHOOKS_QUEUE.retentionSeconds).toBeGreaterThan(horizon)
    // Each attempt (and each hop of a long wait) is a new message: a message is received again
    // only when the sender itself failed, so five receives are five failures of ours.
    expect(WEBHOOKS_QUEUE.maxReceiveCount).toBe(5)
  })

  it('keeps a received message invisible at least six times the sender’s timeout', () => {
    const timeout = resource(t, 'WebhookSenderFunction').Properties.Timeout as number
    expect(timeout).toBe(spec.timeoutSeconds)
    expect(resource(t, queue()).Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout)
  })

  it('starts WebhookSender from its queue only: its batch, partial batch responses, at most maxConcurrency at once', () => {
    expect(trigger.queue).toBe(WEBHOOKS_QUEUE.id)
    expect(mappingsOf(t, 'WebhookSenderFunction')).toEqual([
      {
        FunctionName: { Ref: 'WebhookSenderFunction' },
        EventSourceArn: getAtt(queue(), 'Arn'),
        BatchSize: trigger.batchSize,
        MaximumBatchingWindowInSeconds: trigger.maxBatchingWindowSeconds,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: trigger.maxConcurrency },
      },
    ])
    // Lambda's floor for an SQS mapping's maximum concurrency is 2.
    expect(trigger.maxConcurrency).toBeGreaterThanOrEqual(2)
    for (const type of ['AWS::Lambda::Permission', 'AWS::Events::Rule', 'AWS::SNS::Subscription']) {
      expect({
        type,
        naming: resourcesOfType(t, type).filter(([, r]) =>
          JSON.stringify(r.Properties).includes('WebhookSenderFunction'),
        ),
      }).toEqual({ type, naming: [] })
    }
  })

  it('lets GrantStream send events to Webhooks with its URL, and the sender consume it and send its deliveries back, nothing else on a queue', () => {
    const sqs = (fnId: string) => grantsOf(t, fnId).filter((g) => g.startsWith('sqs:'))
    expect(consumer('GrantStream').sends).toContain(WEBHOOKS_QUEUE.id)
    expect(sqs('GrantStreamFunction')).toContain(`sqs:SendMessage ${queue()}.Arn`)
    expect(variablesOf(t, 'GrantStreamFunction')[WEBHOOKS_QUEUE.urlVariable]).toEqual({
      Ref: queue(),
    })
    expect(spec.sends).toEqual([WEBHOOKS_QUEUE.id])
    expect(sqs('WebhookSenderFunction')).toEqual(
      [
        ...[
          'ReceiveMessage',
          'ChangeMessageVisibility',
          'GetQueueUrl',
          'DeleteMessage',
          'GetQueueAttributes',
        ].map((action) => `sqs:${action} ${queue()}.Arn`),
        `sqs:SendMessage ${queue()}.Arn`,
      ].sort(),
    )
    expect(variablesOf(t, 'WebhookSenderFunction')[WEBHOOKS_QUEUE.urlVariable]).toEqual({
      Ref: queue(),
    })
    // No function may read the dead letters; none but those two and the routes that say so send.
    const senders = resourcesOfType(t, 'AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => sqs(id).includes(`sqs:SendMessage ${queue()}.Arn`))
    expect(senders.sort()).toEqual(
      [
        'GrantStreamFunction',
        'WebhookSenderFunction',
        ...(ROUTES as readonly Route[])
          .filter((r) => r.sends?.includes(WEBHOOKS_QUEUE.id))
          .map((r) => `${r.id}Function`),
      ].sort(),
    )
    for (const [id] of resourcesOfType(t, 'AWS::Lambda::Function')) {
      expect({ id, onDeadLetters: sqs(id).filter((g) => g.includes(deadLetters())) }).toEqual({
        id,
        onDeadLetters: [],
      })
    }
  })

  it('lets the sender use its tables as declared, kms:Decrypt (no more) and, with an SES identity, SendEmail, nothing else', () => {
    const fnId = 'WebhookSenderFunction'
    const others = grantsOf(t, fnId).filter((g) => !/^(sqs|logs):/.test(g))
    expect(others).toEqual(
      [
        ...declaredTables(t, spec),
        `kms:Decrypt ${idOf(t, 'AWS::KMS::Key', 'WebhookSecretsKey')}.Arn`,
      ].sort(),
    )
    expect(spec.kms).toBe('decrypt')
    // With an SES identity: the owners' notice of a disabled endpoint, on the identity and the
    // configuration set only; not the paced offer mailer's ses:GetAccount.
    const ses = grantsOf(mailing.json, fnId).filter((g) => g.startsWith('ses:'))
    expect(ses).toHaveLength(3)
    expect(ses.every((g) => g.startsWith('ses:SendEmail '))).toBe(true)
    expect(variablesOf(mailing.json, fnId)).toMatchObject({
      [ENV.mailFrom]: 'offers@mail.example.com',
    })
  })

  it('alarms on the Webhooks queue’s oldest message at 30 minutes, any message in its dead letters, and the sender’s errors or throttles, all to the alarm topic', () => {
    const dev = synth(CONTEXTS.dev)
    const [topic] = resourcesOfType(dev.alarms, 'AWS::SNS::Topic').filter(([id]) =>
      id.startsWith('Alarms'),
    )
    const byName = (name: string) => {
      const found = resourcesOfType(dev.alarms, 'AWS::CloudWatch::Alarm').filter(([id]) =>
        new RegExp(`^Alarms${name}[0-9A-F]{8}$`).test(id),
      )
      expect({ name, found: found.length }).toEqual({ name, found: 1 })
      return (found[0] as [string, CfnResource])[1].Properties
    }
    const queueName = (name: string) => getAtt(queueId(dev.json, name), 'QueueName')
    expect(WEBHOOKS_MAX_AGE_SECONDS).toBe(30 * 60)
    expect(byName('WebhooksOldestMessage')).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Statistic: 'Maximum',
      Threshold: QUEUE_MAX_AGE_SECONDS.Webhooks,
      Dimensions: [{ Name: 'QueueName', Value: queueName(WEBHOOKS_QUEUE.id) }],
      AlarmActions: [{ Ref: topic?.[0] }],
      OKActions: [{ Ref: topic?.[0] }],
    })
    // Well inside a message's life: a due message is taken within seconds.
    expect(WEBHOOKS_MAX_AGE_SECONDS).toBeLessThan(WEBHOOKS_QUEUE.retentionSeconds / 10)
    expect(byName('WebhooksDeadLettersDepth')).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      Dimensions: [{ Name: 'QueueName', Value: queueName(WEBHOOKS_QUEUE.deadLetter.id) }],
      AlarmActions: [{ Ref: topic?.[0] }],
    })
    expect(JSON.stringify(byName('WebhookSenderErrorsOrThrottles').Metrics)).toContain(
      JSON.stringify({ Name: 'FunctionName', Value: { Ref: 'WebhookSenderFunction' } }),
    )
    // Its dead letters' URL is an output, where an operator reads and redrives them.
    expect(prod.json.Outputs.WebhooksDeadLettersQueueUrl?.Value).toEqual({ Ref: deadLetters() })
  })
})

type AlarmProps = {
  MetricName?: string
  Namespace?: string
  Statistic?: string
  Threshold: number
  ComparisonOperator?: string
  Dimensions?: { Name: string; Value: unknown }[]
}
function alarmsOf(t: CfnTemplate) {
  return resourcesOfType(t, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties as AlarmProps)
}
