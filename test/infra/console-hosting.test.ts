import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Aws } from 'aws-cdk-lib'
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront'
import { IDENTITY_ENV } from '../../functions/identity/identity-settings'
import { ROUTES, type Route } from '../../functions/routes'
import {
  bucketRegionalOrigin,
  CONSOLE_CACHE_CONTROL,
  cognitoOrigin,
  consoleSecurityHeaders,
  contentSecurityPolicy,
} from '../../lib/console-site'
import {
  compileViewerRequest,
  VIEWER_REQUEST_CODE,
  viewerRequestEvent,
} from '../../lib/console-viewer-request'
import { stageConfig } from '../../lib/stage-config'
import { uploadBucketName } from '../../lib/upload-bucket'
import {
  type CfnResource,
  type CfnTemplate,
  resource,
  resourcesOfType,
  synth,
} from '../support/synth'

// `cdk deploy` as it is (its staged files kept, to read config.json), an ephemeral stage, a custom
// domain, and a stage whose e-mails link to a console address given as context.
const CERTIFICATE =
  'arn:aws:acm:us-east-1:123456789012:certificate/0f6c1d2e-3f4a-4b5c-8d9e-0a1b2c3d4e5f'
const prod = synth({}, { stageAssets: true })
const dev = synth({ stage: 'dev', ephemeral: 'true' })
const custom = synth({
  consoleDomainName: 'Console.Example.com',
  consoleCertificateArn: CERTIFICATE,
})
const linked = synth({ stage: 'linked', consoleUrl: 'https://console.acme.example/' })

type Statement = {
  Effect: string
  Action: string | string[]
  Resource: unknown
  Principal?: unknown
  Condition?: unknown
}
type Behavior = {
  PathPattern?: string
  TargetOriginId: string
  AllowedMethods: string[]
  CachePolicyId: string
  OriginRequestPolicyId?: string
  ResponseHeadersPolicyId?: unknown
  ViewerProtocolPolicy: string
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[]
}
type DistributionConfig = {
  DefaultCacheBehavior: Behavior
  CacheBehaviors?: Behavior[]
  CustomErrorResponses?: unknown
  Origins: {
    Id: string
    DomainName: unknown
    OriginAccessControlId?: unknown
    S3OriginConfig?: { OriginAccessIdentity: string }
    CustomOriginConfig?: Record<string, unknown>
  }[]
  Logging?: { Bucket: unknown; Prefix: string }
  Aliases?: string[]
  ViewerCertificate?: Record<string, unknown>
}

const only = (t: CfnTemplate, type: string): [string, CfnResource] => {
  const found = resourcesOfType(t, type)
  expect(found).toHaveLength(1)
  return found[0] as [string, CfnResource]
}
const distributionId = (t: CfnTemplate) => only(t, 'AWS::CloudFront::Distribution')[0]
const distributionOf = (t: CfnTemplate) =>
  only(t, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig as DistributionConfig
const originOf = (t: CfnTemplate, behavior: Behavior) => {
  const origin = distributionOf(t).Origins.find((o) => o.Id === behavior.TargetOriginId)
  if (!origin) throw new Error(`no origin ${behavior.TargetOriginId}`)
  return origin
}
/** The console bucket: the one the distribution's S3 origin reads. */
const consoleBucketId = (t: CfnTemplate) => {
  const origin = originOf(t, distributionOf(t).DefaultCacheBehavior)
  return (origin.DomainName as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]
}
const bucketPolicyOf = (t: CfnTemplate, bucketId: string) => {
  const [, policy] = resourcesOfType(t, 'AWS::S3::BucketPolicy').find(
    ([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
  ) as [string, CfnResource]
  return (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement
}
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] })
const distributionArn = (t: CfnTemplate) => ({
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':cloudfront::',
      { Ref: 'AWS::AccountId' },
      ':distribution/',
      { Ref: distributionId(t) },
    ],
  ],
})
const deployment = (t: CfnTemplate, prefix: string) => {
  const found = resourcesOfType(t, 'Custom::CDKBucketDeployment').find(([id]) =>
    id.startsWith(prefix),
  )
  if (!found) throw new Error(`no deployment ${prefix}`)
  return found
}
const consoleUrlOf = (t: CfnTemplate) => ({
  'Fn::Join': ['', ['https://', getAtt(distributionId(t), 'DomainName'), '/app/']],
})

describe('console bucket', () => {
  it.each([
    ['prod', prod.json],
    ['ephemeral dev', dev.json],
  ])('%s: private, S3-encrypted, owner-enforced, no website', (_, t) => {
    const bucket = resource(t, consoleBucketId(t)).Properties
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
    expect(bucket.OwnershipControls).toEqual({
      Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }],
    })
    expect(bucket.WebsiteConfiguration).toBeUndefined()
    expect(bucket.BucketName).toBeUndefined()
  })

  it('refuses every request without TLS, and lets only this distribution read, through OAC', () => {
    const t = prod.json
    const bucket = consoleBucketId(t)
    const arns = [getAtt(bucket, 'Arn'), { 'Fn::Join': ['', [getAtt(bucket, 'Arn'), '/*']] }]
    expect(bucketPolicyOf(t, bucket)).toEqual([
      {
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Resource: arns,
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: arns[1],
        Condition: { StringEquals: { 'AWS:SourceArn': distributionArn(t) } },
      },
    ])
  })

  it('grants nobody public access on any stage', () => {
    for (const t of [prod.json, dev.json, custom.json]) {
      for (const [, policy] of resourcesOfType(t, 'AWS::S3::BucketPolicy')) {
        for (const s of (policy.Properties.PolicyDocument as { Statement: Statement[] })
          .Statement) {
          if (s.Effect !== 'Allow') continue
          expect(JSON.stringify(s.Principal)).not.toMatch(/"\*"/)
        }
      }
    }
  })

  it('is kept with a production stage, emptied and deleted with an ephemeral one', () => {
    expect(resource(prod.json, consoleBucketId(prod.json)).DeletionPolicy).toBe('Retain')
    expect(resourcesOfType(prod.json, 'Custom::S3AutoDeleteObjects')).toEqual([])
    expect(resource(dev.json, consoleBucketId(dev.json)).DeletionPolicy).toBe('Delete')
    const emptied = resourcesOfType(dev.json, 'Custom::S3AutoDeleteObjects').map(
      ([, r]) => (r.Properties.BucketName as { Ref: string }).Ref,
    )
    expect(emptied).toContain(consoleBucketId(dev.json))
  })
})

describe('distribution', () => {
  const t = prod.json
  const config = distributionOf(t)

  it('reads the bucket through Origin Access Control, never an origin access identity', () => {
    const [oacId, oac] = only(t, 'AWS::CloudFront::OriginAccessControl')
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    })
    const s3 = originOf(t, config.DefaultCacheBehavior)
    expect(s3.OriginAccessControlId).toEqual(getAtt(oacId, 'Id'))
    expect(s3.S3OriginConfig).toEqual({ OriginAccessIdentity: '' })
    expect(resourcesOfType(t, 'AWS::CloudFront::CloudFrontOriginAccessIdentity')).toEqual([])
  })

  it('serves the console on its default behaviour: the function, the headers, GET and HEAD, https', () => {
    const [fnId] = only(t, 'AWS::CloudFront::Function')
    const [policyId] = only(t, 'AWS::CloudFront::ResponseHeadersPolicy')
    expect(config.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD'],
      CachePolicyId: CachePolicy.CACHING_OPTIMIZED.cachePolicyId,
      ViewerProtocolPolicy: 'redirect-to-https',
      ResponseHeadersPolicyId: { Ref: policyId },
      FunctionAssociations: [
        { EventType: 'viewer-request', FunctionARN: getAtt(fnId, 'FunctionARN') },
      ],
    })
  })

  it('sends /manage/* to the HTTP API uncached, with every method and every viewer header but Host', () => {
    expect(config.CacheBehaviors).toHaveLength(2)
    const manage = config.CacheBehaviors?.find((b) => b.PathPattern === '/manage/*') as Behavior
    expect(manage).toEqual({
      PathPattern: '/manage/*',
      TargetOriginId: expect.any(String),
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: CachePolicy.CACHING_DISABLED.cachePolicyId,
      OriginRequestPolicyId:
        OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
      ViewerProtocolPolicy: 'https-only',
      Compress: true,
    })
    const [apiId] = only(t, 'AWS::ApiGatewayV2::Api')
    expect(originOf(t, manage)).toEqual({
      Id: manage.TargetOriginId,
      DomainName: {
        'Fn::Join': [
          '',
          [{ Ref: apiId }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }],
        ],
      },
      CustomOriginConfig: { OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] },
    })
  })

  it('sends /recipient/* to the same API origin, every method, with the body, Content-Type, Authorization and Accept only, keeping nothing', () => {
    const recipient = config.CacheBehaviors?.find(
      (b) => b.PathPattern === '/recipient/*',
    ) as Behavior
    const manage = config.CacheBehaviors?.find((b) => b.PathPattern === '/manage/*') as Behavior
    const [policyId, policy] = only(t, 'AWS::CloudFront::OriginRequestPolicy')
    const [cachePolicyId, cachePolicy] = only(t, 'AWS::CloudFront::CachePolicy')
    expect(recipient).toEqual({
      PathPattern: '/recipient/*',
      // The API's origin, the one /manage/* uses.
      TargetOriginId: manage.TargetOriginId,
      // POST included: CloudFront forwards a request's body on a behaviour that allows it.
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // Answers hold one recipient's grants: never kept, never served to another.
      CachePolicyId: { Ref: cachePolicyId },
      OriginRequestPolicyId: { Ref: policyId },
      ViewerProtocolPolicy: 'https-only',
      Compress: true,
    })
    // The holdings page's session (Authorization) and its statement's Accept, which an origin
    // request policy cannot carry, as cache-key headers of a policy that keeps nothing: every
    // answer says no-store, one without says keeps 0 s, at most 1 s, and each session's are keyed
    // by its own Authorization. Not every viewer header: the User-Agent would reach the access log.
    expect(cachePolicy.Properties.CachePolicyConfig).toMatchObject({
      Name: { 'Fn::Join': ['', ['VirtualShares-prod-RecipientSessions-', { Ref: 'AWS::Region' }]] },
      MinTTL: 0,
      DefaultTTL: 0,
      MaxTTL: 1,
      ParametersInCacheKeyAndForwardedToOrigin: {
        HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Authorization', 'Accept'] },
        CookiesConfig: { CookieBehavior: 'none' },
        QueryStringsConfig: { QueryStringBehavior: 'none' },
      },
    })
    // What the recipient routes read of a request besides: the JSON body and its Content-Type. No
    // Host (API Gateway refuses one not its own), no cookies, no query string.
    expect(policy.Properties.OriginRequestPolicyConfig).toMatchObject({
      // Unique in the account (CloudFront is global): the stack's name and its region.
      Name: { 'Fn::Join': ['', ['VirtualShares-prod-RecipientRequests-', { Ref: 'AWS::Region' }]] },
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Content-Type'] },
      CookiesConfig: { CookieBehavior: 'none' },
      QueryStringsConfig: { QueryStringBehavior: 'none' },
    })
    // Every route under it is public (no authorizer to forward a token to), and every public
    // route the page calls is under it.
    const recipientRoutes = (ROUTES as readonly Route[]).filter((r) =>
      r.routeKey.split(' ')[1]?.startsWith('/recipient/'),
    )
    expect(recipientRoutes.length).toBeGreaterThan(0)
    for (const route of recipientRoutes) {
      const [method, path] = route.routeKey.split(' ')
      expect({ id: route.id, auth: route.auth, method }).toEqual({
        id: route.id,
        auth: 'function',
        // The holdings page reads (GET) and signs out (DELETE) with its session.
        method: path?.startsWith('/recipient/holdings') ? method : 'POST',
      })
    }
    const [apiId] = only(t, 'AWS::ApiGatewayV2::Api')
    const routeIds = resourcesOfType(t, 'AWS::ApiGatewayV2::Route')
      .filter(([, r]) => String(r.Properties.RouteKey).includes(' /recipient/'))
      .map(([, r]) => ({
        key: r.Properties.RouteKey,
        api: r.Properties.ApiId,
        authorizer: r.Properties.AuthorizerId,
      }))
    expect(routeIds).toEqual(
      recipientRoutes.map((r) => ({ key: r.routeKey, api: { Ref: apiId }, authorizer: undefined })),
    )
  })

  it('attaches the function to the console behaviour only', () => {
    const [fnId] = only(t, 'AWS::CloudFront::Function')
    expect(JSON.stringify(config).split(`"${fnId}"`)).toHaveLength(2)
    for (const behavior of config.CacheBehaviors ?? []) {
      expect(behavior.FunctionAssociations).toBeUndefined()
      // The API's answers pass as the API gives them.
      expect(behavior.ResponseHeadersPolicyId).toBeUndefined()
    }
    expect(JSON.stringify(config)).not.toContain('LambdaFunctionAssociations')
  })

  it('caches no error answer (one caller’s /manage/* error is never another’s), and replaces none', () => {
    // Every code CloudFront accepts in CustomErrorResponses; otherwise it keeps errors 10 s.
    const codes = [400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504]
    for (const template of [t, dev.json, custom.json]) {
      // No ResponseCode, no ResponsePagePath: the origin's status and body pass through as they
      // are. A page would turn the API's 403 and 404 into the console's index.html with a 200.
      expect(distributionOf(template).CustomErrorResponses).toEqual(
        codes.map((ErrorCode) => ({ ErrorCode, ErrorCachingMinTTL: 0 })),
      )
    }
  })

  it('still answers a missing console file with S3’s own error, not the page', () => {
    // The function sends a missing asset to S3 as it is (never index.html), and no error response
    // turns S3's answer into a page: the browser sees the error, and a stale tab's failed chunk
    // load is an error, not HTML parsed as script.
    const handler = compileViewerRequest(
      only(t, 'AWS::CloudFront::Function')[1].Properties.FunctionCode as string,
    )
    for (const uri of ['/app/assets/index-gone.js', '/app/assets/missing', '/app/gone.svg']) {
      const routed = handler(viewerRequestEvent(uri))
      expect('uri' in routed && routed.uri).toBe(uri)
    }
    const responses = (config.CustomErrorResponses ?? []) as Record<string, unknown>[]
    expect(responses.filter((r) => 'ResponsePagePath' in r || 'ResponseCode' in r)).toEqual([])
    // Without s3:ListBucket (read through OAC only) S3 answers a missing key with 403.
    const readActions = bucketPolicyOf(t, consoleBucketId(t))
      .filter((s) => s.Effect === 'Allow')
      .flatMap((s) => [s.Action].flat())
    expect(readActions).toEqual(['s3:GetObject'])
  })

  it('logs every request to a private, TLS-only bucket kept as long as the stage keeps logs', () => {
    const logsBucketOf = (t: CfnTemplate) =>
      (distributionOf(t).Logging as { Bucket: { 'Fn::GetAtt': [string] } }).Bucket['Fn::GetAtt'][0]
    const logs = logsBucketOf(t)
    expect(config.Logging?.Prefix).toBe('cloudfront/')
    const bucket = resource(t, logs)
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      // CloudFront's standard logs arrive under an ACL grant.
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
      LifecycleConfiguration: { Rules: [{ ExpirationInDays: 90, Status: 'Enabled' }] },
    })
    expect(bucket.DeletionPolicy).toBe('Retain')
    expect(bucketPolicyOf(t, logs)[0]).toMatchObject({
      Effect: 'Deny',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    })
    const devLogs = logsBucketOf(dev.json)
    expect(resource(dev.json, devLogs).Properties.LifecycleConfiguration).toEqual({
      Rules: [{ ExpirationInDays: 7, Status: 'Enabled' }],
    })
  })

  it('does not carry the integrator API: /programs/... goes to the API URL', () => {
    expect((config.CacheBehaviors ?? []).map((b) => b.PathPattern)).toEqual([
      '/manage/*',
      '/recipient/*',
    ])
  })

  it('uses CloudFront’s own domain and certificate unless a custom domain is given', () => {
    expect(config.Aliases).toBeUndefined()
    expect(config.ViewerCertificate).toBeUndefined()
    expect(distributionOf(custom.json)).toMatchObject({
      Aliases: ['console.example.com'],
      ViewerCertificate: {
        AcmCertificateArn: CERTIFICATE,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      },
    })
  })
})

describe('viewer-request function', () => {
  const [, fn] = only(prod.json, 'AWS::CloudFront::Function')
  const code = fn.Properties.FunctionCode as string
  // The code exactly as the template deploys it, run in Node.
  const handler = compileViewerRequest(code)

  it('is lib/console-viewer-request.ts, on cloudfront-js-2.0, published', () => {
    expect(code).toBe(VIEWER_REQUEST_CODE)
    expect(fn.Properties.FunctionConfig).toMatchObject({ Runtime: 'cloudfront-js-2.0' })
    expect(fn.Properties.AutoPublish).toBe(true)
  })

  it.each([
    ['/app/programs/pg_1', '/app/index.html'],
    ['/app/', '/app/index.html'],
    ['/app/programs', '/app/index.html'],
    ['/app/team/', '/app/index.html'],
    ['/app/index.html', '/app/index.html'],
    ['/app/assets/x.js', '/app/assets/x.js'],
    ['/app/assets/index-Bx1.css', '/app/assets/index-Bx1.css'],
    ['/app/assets/missing', '/app/assets/missing'],
    ['/app/config.json', '/app/config.json'],
    ['/app/favicon.svg', '/app/favicon.svg'],
    ['/manage/me', '/manage/me'],
    ['/programs/prg_1/grant-tokens', '/programs/prg_1/grant-tokens'],
    ['/application', '/application'],
    // The recipient's page, the link of every offer e-mail: its own entry, not the console's.
    ['/offer', '/app/offer.html'],
    ['/app/offer.html', '/app/offer.html'],
    ['/offer/x', '/offer/x'],
    ['/offers', '/offers'],
    ['/recipient/offer', '/recipient/offer'],
    // The recipient's holdings, the link of every sign-in e-mail: its own entry as well.
    ['/holdings', '/app/holdings.html'],
    ['/app/holdings.html', '/app/holdings.html'],
    ['/holdings/x', '/holdings/x'],
    ['/recipient/holdings', '/recipient/holdings'],
  ])('%s goes to the origin as %s', (uri, expected) => {
    const result = handler(viewerRequestEvent(uri))
    expect('uri' in result && result.uri).toBe(expected)
  })

  it('serves /offer and /holdings under the console’s headers (CSP included): the same behaviour and policy', () => {
    // /offer reaches the default behaviour (no behaviour of its own), whose response headers
    // policy is the console's: its CSP allows only our own scripts and calls to our own origin,
    // where /recipient/* is.
    expect(
      prod.json.Resources[distributionId(prod.json)]?.Properties.DistributionConfig,
    ).toMatchObject({
      DefaultCacheBehavior: {
        ResponseHeadersPolicyId: {
          Ref: only(prod.json, 'AWS::CloudFront::ResponseHeadersPolicy')[0],
        },
      },
    })
    const paths = distributionOf(prod.json).CacheBehaviors?.map((b) => b.PathPattern ?? '') ?? []
    for (const path of paths) {
      for (const page of ['/offer', '/holdings']) {
        expect(page).not.toMatch(new RegExp(`^${path.replace('*', '.*')}$`))
      }
    }
  })

  it.each(['/', '/app'])('%s redirects to /app/', (uri) => {
    expect(handler(viewerRequestEvent(uri))).toEqual({
      statusCode: 301,
      statusDescription: 'Moved Permanently',
      headers: { location: { value: '/app/' } },
    })
  })
})

describe('response headers policy', () => {
  const [, policy] = only(prod.json, 'AWS::CloudFront::ResponseHeadersPolicy')
  type Security = {
    ContentSecurityPolicy: { ContentSecurityPolicy: unknown; Override: boolean }
    StrictTransportSecurity: {
      AccessControlMaxAgeSec: number
      IncludeSubdomains: boolean
      Override: boolean
    }
    ContentTypeOptions: { Override: boolean }
    FrameOptions: { FrameOption: string; Override: boolean }
    ReferrerPolicy: { ReferrerPolicy: string; Override: boolean }
  }
  const config = policy.Properties.ResponseHeadersPolicyConfig as {
    SecurityHeadersConfig: Security
    CustomHeadersConfig?: unknown
  }
  const security = config.SecurityHeadersConfig

  it('sends exactly the headers of lib/console-site.ts, which npm start sends too', () => {
    const cognito = cognitoOrigin(Aws.REGION, Aws.URL_SUFFIX)
    // The policy read back as the headers a browser gets.
    const sent = {
      'content-security-policy': security.ContentSecurityPolicy.ContentSecurityPolicy,
      'strict-transport-security': `max-age=${security.StrictTransportSecurity.AccessControlMaxAgeSec}${
        security.StrictTransportSecurity.IncludeSubdomains ? '; includeSubDomains' : ''
      }`,
      'x-content-type-options': security.ContentTypeOptions ? 'nosniff' : undefined,
      'referrer-policy': security.ReferrerPolicy.ReferrerPolicy,
      'x-frame-options': security.FrameOptions.FrameOption,
    }
    // The upload bucket's regional endpoint too (send to many's presigned POSTs: lib/upload-bucket.ts).
    const uploads = bucketRegionalOrigin(uploadBucketName(prod.named), Aws.REGION, Aws.URL_SUFFIX)
    expect(sent).toEqual(prod.named.resolve(consoleSecurityHeaders(cognito, uploads)))
    for (const header of Object.values(security)) expect(header.Override).toBe(true)
    expect(config.CustomHeadersConfig).toBeUndefined()
  })

  it('lets the page call its own origin, the stage region’s Cognito and the upload bucket, nothing else', () => {
    expect(security.ContentSecurityPolicy.ContentSecurityPolicy).toEqual({
      'Fn::Join': [
        '',
        [
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://cognito-idp.",
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          ` https://${prod.stackName.toLowerCase()}-uploads-`,
          { Ref: 'AWS::AccountId' },
          '-',
          { Ref: 'AWS::Region' },
          '.s3.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          "; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
        ],
      ],
    })
    expect(contentSecurityPolicy(cognitoOrigin('eu-west-1'))).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' https://cognito-idp.eu-west-1.amazonaws.com; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
    )
  })
})

describe('deployment of the built console', () => {
  const t = prod.json
  const [assetsId, assets] = deployment(t, 'ConsoleDeployAssets')
  const [, pages] = deployment(t, 'ConsoleDeployPages')
  const bucket = consoleBucketId(t)

  it('puts hashed assets under app/assets/ as immutable, and keeps earlier builds’ assets', () => {
    expect(assets.Properties).toMatchObject({
      DestinationBucketName: { Ref: bucket },
      DestinationBucketKeyPrefix: 'app/assets/',
      SystemMetadata: { 'cache-control': CONSOLE_CACHE_CONTROL.assets },
      Prune: false,
    })
    expect(assets.Properties.DistributionId).toBeUndefined()
  })

  it('then index.html and config.json, revalidated by browsers and invalidated in CloudFront', () => {
    expect(pages.Properties).toMatchObject({
      DestinationBucketName: { Ref: bucket },
      DestinationBucketKeyPrefix: 'app/',
      SystemMetadata: { 'cache-control': CONSOLE_CACHE_CONTROL.pages },
      Prune: true,
      Exclude: ['assets/*'],
      DistributionId: { Ref: distributionId(t) },
      DistributionPaths: [
        '/app/index.html',
        '/app/offer.html',
        '/app/holdings.html',
        '/app/config.json',
      ],
    })
    expect((pages as CfnResource & { DependsOn: string[] }).DependsOn).toContain(assetsId)
  })

  it('writes config.json from the stack’s own values, and leaves out any config.json of the build', () => {
    const keys = pages.Properties.SourceObjectKeys as string[]
    const markers = (pages.Properties.SourceMarkers as Record<string, unknown>[])[1] as Record<
      string,
      unknown
    >
    const staged = (key: string) => join(prod.outdir, `asset.${key.replace(/\.zip$/, '')}`)
    expect(readdirSync(staged(keys[0] as string)).sort()).toEqual([
      'favicon.svg',
      'holdings.html',
      'index.html',
      'offer.html',
    ])
    const written = JSON.parse(readFileSync(join(staged(keys[1] as string), 'config.json'), 'utf8'))
    // Each value as the deploy fills it in: its text around CloudFormation's values.
    const filled = Object.fromEntries(
      Object.entries(written as Record<string, string>).map(([name, value]) => [
        name,
        value
          .split(/(<<marker:0xbaba:\d+>>)/)
          .filter(Boolean)
          .map((part) => markers[part] ?? part),
      ]),
    )
    const pool = only(t, 'AWS::Cognito::UserPool')[0]
    const client = only(t, 'AWS::Cognito::UserPoolClient')[0]
    const apiId = only(t, 'AWS::ApiGatewayV2::Api')[0]
    expect(filled).toEqual({
      // The grant API's own endpoint: CloudFront sends only /manage/* to the API, so a "Try it"
      // command against the console's origin would get CloudFront's 403.
      grantApiUrl: [getAtt(apiId, 'ApiEndpoint')],
      region: [{ Ref: 'AWS::Region' }],
      userPoolId: [{ Ref: pool }],
      userPoolClientId: [{ Ref: client }],
      cognitoEndpoint: [
        'https://cognito-idp.',
        { Ref: 'AWS::Region' },
        '.',
        { Ref: 'AWS::URLSuffix' },
        '/',
      ],
    })
    // With a custom console domain too: the console's domain never stands for the API.
    expect(custom.exposed.consoleGrantApiUrl).toEqual(
      getAtt(only(custom.json, 'AWS::ApiGatewayV2::Api')[0], 'ApiEndpoint'),
    )
    // The same address the stack outputs as ApiUrl (the $default stage's URL, with its slash).
    expect(JSON.stringify(t.Outputs.ApiUrl?.Value)).toContain(apiId)
  })

  it('runs as a role that reads its staged files, writes app/ of the bucket, invalidates this distribution', () => {
    const deployers = resourcesOfType(t, 'AWS::Lambda::Function').filter(([id]) =>
      id.startsWith('CustomCDKBucketDeployment'),
    )
    // One function, shared by both deployments.
    expect(deployers).toHaveLength(1)
    const [, fn] = deployers[0] as [string, CfnResource]
    const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]
    const role = resource(t, roleId)
    expect(role.Properties.ManagedPolicyArns).toBeUndefined()
    const logs = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref
    expect(resource(t, logs).Properties.RetentionInDays).toBe(90)
    const statements = resourcesOfType(t, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    const assetObject = (key: string) => ({
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':s3:::',
          // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation's Fn::Sub syntax
          { 'Fn::Sub': 'cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}' },
          `/${key}`,
        ],
      ],
    })
    const staged = [
      ...(assets.Properties.SourceObjectKeys as string[]),
      ...(pages.Properties.SourceObjectKeys as string[]),
    ]
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: getAtt(logs, 'Arn'),
      },
      {
        Effect: 'Allow',
        Action: expect.arrayContaining(['s3:GetObject*', 's3:PutObject', 's3:DeleteObject*']),
        Resource: [getAtt(bucket, 'Arn'), { 'Fn::Join': ['', [getAtt(bucket, 'Arn'), '/app/*']] }],
      },
      {
        Effect: 'Allow',
        Action: ['cloudfront:CreateInvalidation', 'cloudfront:GetInvalidation'],
        Resource: distributionArn(t),
      },
      ...staged.map((key) => ({
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: assetObject(key),
      })),
    ])
  })

  it('stops the synth with how to build the console when it is not built', () => {
    expect(() =>
      synth({}, { consoleDistDir: mkdtempSync(join(tmpdir(), 'console-missing-')) }),
    ).toThrow(/The console is not built: no index.html.*npm run build -w console/)
    // A build without the recipient's page: every offer e-mail's link would be S3's 403.
    const withoutOffer = mkdtempSync(join(tmpdir(), 'console-no-offer-'))
    writeFileSync(join(withoutOffer, 'index.html'), '<!doctype html>')
    expect(() => synth({}, { consoleDistDir: withoutOffer })).toThrow(
      /The console is not built: no offer.html.*npm run build -w console/,
    )
    // Nor without the holdings page: every sign-in e-mail's link would be.
    writeFileSync(join(withoutOffer, 'offer.html'), '<!doctype html>')
    expect(() => synth({}, { consoleDistDir: withoutOffer })).toThrow(
      /The console is not built: no holdings.html.*npm run build -w console/,
    )
  })
})

describe('console address', () => {
  const envOf = (t: CfnTemplate) =>
    (
      resource(t, 'CustomMessageFunction').Properties.Environment as {
        Variables: Record<string, unknown>
      }
    ).Variables[IDENTITY_ENV.consoleUrl]

  it('is output as ConsoleUrl, with the distribution’s domain for DNS', () => {
    expect(prod.json.Outputs.ConsoleUrl?.Value).toEqual(consoleUrlOf(prod.json))
    expect(prod.json.Outputs.ConsoleDistributionDomainName?.Value).toEqual(
      getAtt(distributionId(prod.json), 'DomainName'),
    )
    expect(custom.json.Outputs.ConsoleUrl?.Value).toBe('https://console.example.com/app/')
  })

  it('is what the invitation e-mails link to, unless -c consoleUrl names another', () => {
    expect(envOf(prod.json)).toEqual(consoleUrlOf(prod.json))
    expect(envOf(custom.json)).toBe('https://console.example.com/app/')
    expect(envOf(linked.json)).toBe('https://console.acme.example/')
    expect(linked.json.Outputs.ConsoleUrl?.Value).toEqual(consoleUrlOf(linked.json))
  })

  it('makes no dependency cycle (trigger -> distribution -> API -> authorizer -> pool -> trigger)', () => {
    for (const t of [prod.json, dev.json, custom.json]) expect(findCycle(t)).toEqual([])
    // The check itself sees one.
    const resourceWith = (properties: unknown) => ({ Type: 'Test', Properties: { properties } })
    expect(
      findCycle({
        Resources: { A: resourceWith({ Ref: 'B' }), B: resourceWith(getAtt('A', 'Arn')) },
        Outputs: {},
      } as unknown as CfnTemplate),
    ).toEqual(['A', 'B', 'A'])
  })

  it('takes a custom domain only with a us-east-1 certificate, and checks both', () => {
    const config = (context: Record<string, string>) => stageConfig((key) => context[key])
    expect(
      config({ consoleDomainName: 'Console.Example.com', consoleCertificateArn: CERTIFICATE })
        .consoleDomain,
    ).toEqual({ domainName: 'console.example.com', certificateArn: CERTIFICATE })
    expect(config({}).consoleDomain).toBeUndefined()
    expect(() => config({ consoleDomainName: 'console.example.com' })).toThrow(/go together/)
    expect(() => config({ consoleCertificateArn: CERTIFICATE })).toThrow(/go together/)
    expect(() =>
      config({
        consoleDomainName: 'console.example.com',
        consoleCertificateArn: CERTIFICATE.replace('us-east-1', 'eu-west-1'),
      }),
    ).toThrow(/us-east-1/)
    expect(() =>
      config({
        consoleDomainName: 'https://console.example.com',
        consoleCertificateArn: CERTIFICATE,
      }),
    ).toThrow(/consoleDomainName is not a domain name/)
  })
})

describe('cdk-nag AwsSolutions', () => {
  it('custom domain: no unacknowledged finding (TLS 1.2 at least, so CFR4 holds unacknowledged)', () => {
    // checkAwsSolutions ran on the stack as bin/app.ts runs it (test/support/synth.ts).
    expect(custom.nag).toEqual([])
  })
})

/** A dependency cycle among the template's resources (Ref, GetAtt, Sub, DependsOn), or []. */
const findCycle = (t: CfnTemplate): string[] => {
  const edges = new Map<string, Set<string>>()
  const collect = (value: unknown, into: Set<string>) => {
    if (Array.isArray(value)) for (const item of value) collect(item, into)
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'Ref' && typeof inner === 'string' && inner in t.Resources) into.add(inner)
        else if (key === 'Fn::GetAtt') into.add(String((inner as string[])[0]))
        else if (key === 'Fn::Sub') {
          const text = typeof inner === 'string' ? inner : String((inner as unknown[])[0])
          for (const [, name] of text.matchAll(/\$\{([^}.!]+)/g)) {
            if (name && name in t.Resources) into.add(name)
          }
          collect(inner, into)
        } else collect(inner, into)
      }
    }
  }
  for (const [id, r] of Object.entries(t.Resources)) {
    const into = new Set<string>()
    collect(r.Properties ?? {}, into)
    for (const d of [(r as { DependsOn?: string | string[] }).DependsOn ?? []].flat()) into.add(d)
    edges.set(id, into)
  }
  const state = new Map<string, 'open' | 'done'>()
  const visit = (id: string, path: string[]): string[] => {
    state.set(id, 'open')
    for (const next of edges.get(id) ?? []) {
      if (state.get(next) === 'open') return [...path, id, next]
      if (!state.has(next)) {
        const cycle = visit(next, [...path, id])
        if (cycle.length > 0) return cycle
      }
    }
    state.set(id, 'done')
    return []
  }
  for (const id of edges.keys()) {
    if (state.has(id)) continue
    const cycle = visit(id, [])
    if (cycle.length > 0) return cycle
  }
  return []
}
