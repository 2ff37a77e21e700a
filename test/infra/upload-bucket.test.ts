import { App, Aws, Stack } from 'aws-cdk-lib'
import { ENV } from '../../functions/env-names'
import { ROUTES, type Route } from '../../functions/routes'
import { bucketRegionalOrigin, cognitoOrigin, contentSecurityPolicy } from '../../lib/console-site'
import { uploadBucketName } from '../../lib/upload-bucket'
import {
  type CfnResource,
  type CfnTemplate,
  resource,
  resourcesOfType,
  rolePolicies,
  synth,
} from '../support/synth'

/**
 * Send to many's upload bucket in the template a plain `cdk deploy` makes: private, encrypted,
 * TLS only, uploads kept a day, CORS for POST from the console's origin only; the console's CSP
 * names exactly its regional endpoint; the two routes that use it have exactly the action they use,
 * on `uploads/*`, and its name; no other function touches it.
 */
const prod = synth()
const dev = synth({ stage: 'dev', ephemeral: 'true' })
const t = prod.json

const uploadBucketId = (template: CfnTemplate) => {
  const found = resourcesOfType(template, 'AWS::S3::Bucket').filter(([, b]) =>
    JSON.stringify(b.Properties.BucketName ?? '').includes('-uploads-'),
  )
  expect(found).toHaveLength(1)
  return (found[0] as [string, unknown])[0]
}
const bucket = resource(t, uploadBucketId(t)).Properties
const distributionId = resourcesOfType(t, 'AWS::CloudFront::Distribution')[0]?.[0]

type Statement = {
  Effect: string
  Action: string | string[]
  Resource: unknown
  Condition?: unknown
}

describe('upload bucket', () => {
  it('is named from the stack, account and region, blocks public access, encrypts, and keeps uploads a day', () => {
    expect(bucket.BucketName).toEqual(prod.named.resolve(uploadBucketName(prod.named)))
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    })
    expect(bucket.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [
        { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
      ],
    })
    expect(bucket.LifecycleConfiguration).toEqual({
      Rules: [
        expect.objectContaining({
          Prefix: 'uploads/',
          ExpirationInDays: 1,
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          Status: 'Enabled',
        }),
      ],
    })
    expect(bucket.LoggingConfiguration).toMatchObject({ LogFilePrefix: 's3-uploads/' })
  })

  it('lets browsers POST from the console origin only (never *)', () => {
    expect(bucket.CorsConfiguration).toEqual({
      CorsRules: [
        {
          AllowedMethods: ['POST'],
          AllowedOrigins: [
            { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] },
          ],
          MaxAge: 3000,
        },
      ],
    })
  })

  it('refuses every request without TLS', () => {
    const [, policy] = resourcesOfType(t, 'AWS::S3::BucketPolicy').find(
      ([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: uploadBucketId(t) }),
    ) as [string, CfnResource]
    expect((policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      ]),
    )
  })

  it('goes with the stack: emptied first by an ephemeral stage only', () => {
    const upload = (template: CfnTemplate) => resource(template, uploadBucketId(template))
    expect(upload(t).DeletionPolicy).toBe('Delete')
    expect(upload(dev.json).DeletionPolicy).toBe('Delete')
    const emptied = (template: CfnTemplate) =>
      resourcesOfType(template, 'Custom::S3AutoDeleteObjects').some(
        ([, r]) =>
          JSON.stringify(r.Properties.BucketName) ===
          JSON.stringify({ Ref: uploadBucketId(template) }),
      )
    expect(emptied(t)).toBe(false)
    expect(emptied(dev.json)).toBe(true)
  })

  it('is what the console CSP connects to: exactly its regional endpoint, beside Cognito', () => {
    const [, policy] = resourcesOfType(t, 'AWS::CloudFront::ResponseHeadersPolicy')[0] as [
      string,
      { Properties: Record<string, unknown> },
    ]
    const csp = (
      policy.Properties.ResponseHeadersPolicyConfig as {
        SecurityHeadersConfig: { ContentSecurityPolicy: { ContentSecurityPolicy: unknown } }
      }
    ).SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy
    const uploads = bucketRegionalOrigin(uploadBucketName(prod.named), Aws.REGION, Aws.URL_SUFFIX)
    expect(csp).toEqual(
      prod.named.resolve(contentSecurityPolicy(cognitoOrigin(Aws.REGION, Aws.URL_SUFFIX), uploads)),
    )
    expect(
      contentSecurityPolicy(cognitoOrigin('eu-west-1'), bucketRegionalOrigin('b', 'eu-west-1')),
    ).toContain(
      "connect-src 'self' https://cognito-idp.eu-west-1.amazonaws.com https://b.s3.eu-west-1.amazonaws.com;",
    )
  })
})

describe('who may use it', () => {
  const functionsWith = (action: string) =>
    rolePolicies(t).flatMap(([, policy]) =>
      (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement.filter(
        (s) =>
          [s.Action].flat().some((a) => action.startsWith(a.replace(/\*$/, ''))) &&
          JSON.stringify(s.Resource).includes(uploadBucketId(t)),
      ).map((s) => ({
        roles: policy.Properties.Roles,
        actions: [s.Action].flat(),
        resource: s.Resource,
      })),
    )
  const roleOf = (routeId: string) => [
    {
      Ref: (resource(t, `${routeId}Function`).Properties.Role as { 'Fn::GetAtt': [string] })[
        'Fn::GetAtt'
      ][0],
    },
  ]
  const objects = {
    'Fn::Join': ['', [{ 'Fn::GetAtt': [uploadBucketId(t), 'Arn'] }, '/uploads/*']],
  }

  it('routes.ts `uploads`: presign -> s3:PutObject, read -> s3:GetObject, on uploads/* only; no one else on this bucket', () => {
    const users = (ROUTES as readonly Route[]).filter((r) => r.uploads)
    expect(users.map((r) => [r.id, r.uploads]).sort()).toEqual([
      ['CreateGrantBatch', 'read'],
      ['CreateGrantBatchUpload', 'presign'],
    ])
    expect(functionsWith('s3:PutObject')).toEqual([
      { roles: roleOf('CreateGrantBatchUpload'), actions: ['s3:PutObject'], resource: objects },
    ])
    expect(functionsWith('s3:GetObject')).toEqual([
      { roles: roleOf('CreateGrantBatch'), actions: ['s3:GetObject'], resource: objects },
    ])
  })

  it('names the bucket to those two functions only', () => {
    const named = resourcesOfType(t, 'AWS::Lambda::Function')
      .filter(
        ([, fn]) =>
          (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)
            ?.Variables?.[ENV.uploadBucket] !== undefined,
      )
      .map(([id]) => id)
      .sort()
    expect(named).toEqual(['CreateGrantBatchFunction', 'CreateGrantBatchUploadFunction'])
  })
})

describe('uploadBucketName', () => {
  const nameOf = (stackName: string) => {
    const stack = new Stack(new App(), stackName)
    return stack.resolve(uploadBucketName(stack)) as { 'Fn::Join': [string, unknown[]] }
  }
  /** The name with the longest account (12 digits) and a long region in place of the tokens. */
  const longest = (stackName: string) =>
    nameOf(stackName)
      ['Fn::Join'][1].map((part) =>
        typeof part === 'string'
          ? part
          : JSON.stringify(part).includes('AccountId')
            ? '123456789012'
            : 'ap-southeast-5x',
      )
      .join('')

  it('fits S3 (at most 63 lowercase characters) and keeps long stack names apart', () => {
    const a = longest('VirtualShareGrants-a-very-long-stage-name-for-acceptance')
    const b = longest('VirtualShareGrants-a-very-long-stage-name-for-acceptance2')
    for (const name of [a, b, longest('VirtualShareGrants-prod')]) {
      expect(name.length).toBeLessThanOrEqual(63)
      expect(name).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/)
    }
    expect(a).not.toBe(b)
    expect(longest('VirtualShareGrants-prod')).toBe(
      'virtualsharegrants-prod-uploads-123456789012-ap-southeast-5x',
    )
  })
})
