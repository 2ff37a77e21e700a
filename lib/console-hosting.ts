import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib'
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2'
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager'
import {
  AllowedMethods,
  CacheCookieBehavior,
  CacheHeaderBehavior,
  CachePolicy,
  CacheQueryStringBehavior,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  OriginSslPolicy,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront'
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins'
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam'
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda'
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs'
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3'
import { BucketDeployment, CacheControl, type ISource, Source } from 'aws-cdk-lib/aws-s3-deployment'
import { Construct } from 'constructs'
import {
  CONSOLE_ASSETS_DIR,
  CONSOLE_CACHE_CONTROL,
  CONSOLE_HEADER_SETTINGS,
  CONSOLE_PATH,
  type ConsoleConfig,
  cognitoOrigin,
  contentSecurityPolicy,
  HOLDINGS_PAGE_FILE,
  OFFER_PAGE_FILE,
  RECIPIENT_API_PATH,
} from './console-site'
import { VIEWER_REQUEST_CODE } from './console-viewer-request'

export type ConsoleHostingProps = {
  /** The built console (`console/dist`): index.html at the top, hashed files under assets/. */
  distDir: string
  /** The HTTP API whose `/manage/*` routes the console calls, through this distribution. */
  api: IHttpApi
  /** Where integrators call the grant API (config.json's `grantApiUrl`): the API's own endpoint. */
  grantApiUrl: string
  userPoolId: string
  userPoolClientId: string
  /** Ephemeral stages drop the buckets (and their files) and logs with the stack; others keep them. */
  ephemeral: boolean
  /** How long the distribution's access logs and the deployment's logs are kept. */
  logRetention: RetentionDays
  /** A domain of your own and its us-east-1 ACM certificate; CloudFront's own domain otherwise. */
  domain?: { domainName: string; certificateArn: string }
  /** Shown in the CloudFront console next to the distribution. */
  comment: string
  /**
   * The upload bucket's regional endpoint (lib/upload-bucket.ts): the console POSTs send-to-many
   * CSVs there, so the CSP's connect-src names it, and nothing wider.
   */
  uploadOrigin?: string
}

/**
 * Every status CloudFront lets a distribution set error caching for (CustomErrorResponse's
 * ErrorCode): each gets TTL 0.
 */
export const UNCACHED_ERROR_STATUSES = [400, 403, 404, 405, 414, 416, 500, 501, 502, 503, 504]

/** The CDK enum member whose value is `value` (lib/console-site.ts holds plain strings). */
const enumValue = <T extends string>(values: Record<string, T>, value: string): T => {
  const found = Object.values(values).find((v) => v === value)
  if (found === undefined) throw new Error(`${value} is not one of ${Object.values(values)}`)
  return found
}

/**
 * The issuer console in AWS: its built files in a private S3 bucket, read by CloudFront only
 * (Origin Access Control), and the management API behind the same distribution at `/manage/*`, so
 * the console and the API share one origin, exactly as under `npm start` (no CORS anywhere).
 *
 * - default behaviour (the console): the bucket; the viewer-request function of
 *   lib/console-viewer-request.ts (`/` and `/app` redirect to `/app/`, `/app/<page>` is
 *   index.html); the response headers policy of lib/console-site.ts; cached (files carry their own
 *   Cache-Control: index.html and config.json `no-cache`, hashed assets immutable);
 * - `/manage/*`: the HTTP API, never cached, every method, every viewer header but Host forwarded
 *   (`Authorization` included), answers passed through as the API gives them;
 * - the integrator API (`/programs/...`) is not routed here: integrators call the API's own URL,
 *   which config.json hands the console (`grantApiUrl`) for the addresses it shows them;
 * - error answers are never cached (`errorResponses`, TTL 0, no replacement page): the setting is
 *   the distribution's, not a behaviour's, and one caller's 403 or 503 from `/manage/*` must never
 *   reach another; the console's own missing files stay S3's 403, as they were.
 *
 * The files are deployed by two BucketDeployments: hashed assets first (never pruned, so a tab
 * opened before a deploy still loads its chunks), then index.html and a config.json made from this
 * stack's values, after which index.html and config.json are invalidated.
 */
export class ConsoleHosting extends Construct {
  readonly bucket: Bucket
  readonly logBucket: Bucket
  readonly distribution: Distribution
  readonly viewerRequest: CloudFrontFunction
  readonly headersPolicy: ResponseHeadersPolicy
  /** `https://<domain>`: the console's origin, which is also the management API's for the console. */
  readonly origin: string
  /** `https://<domain>/app/`. */
  readonly url: string
  /** What the deployed config.json holds (deploy-time values). */
  readonly config: ConsoleConfig
  /** The role of the deployment's function (S3 copy and invalidation). */
  readonly deployRole: Role
  /** What the `/recipient/*` behaviour forwards to the API. */
  readonly recipientRequests: OriginRequestPolicy
  /** The `/recipient/*` behaviour's cache policy: Authorization and Accept, nothing kept. */
  readonly recipientCache: CachePolicy

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id)
    // The console, the recipient's page that every offer e-mail links to, and the holdings page.
    for (const page of ['index.html', OFFER_PAGE_FILE, HOLDINGS_PAGE_FILE]) {
      if (!existsSync(join(props.distDir, page))) {
        throw new Error(
          `The console is not built: no ${page} in ${props.distDir}. Run npm run build -w console (npm install does it), then synth again.`,
        )
      }
    }
    const removalPolicy = props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN
    // An ephemeral stage's buckets must be emptied for `cdk destroy` to delete them.
    const autoDeleteObjects = props.ephemeral

    this.logBucket = this.createLogBucket(props.logRetention, removalPolicy, autoDeleteObjects)
    this.bucket = this.createFilesBucket(removalPolicy, autoDeleteObjects)

    this.viewerRequest = new CloudFrontFunction(this, 'ViewerRequest', {
      code: FunctionCode.fromInline(VIEWER_REQUEST_CODE),
      runtime: FunctionRuntime.JS_2_0,
      comment:
        'Console: / and /app redirect to /app/; /app/<page> is /app/index.html; /offer and /holdings are /app/offer.html and /app/holdings.html',
    })

    const cognito = cognitoOrigin(Aws.REGION, Aws.URL_SUFFIX)
    this.headersPolicy = this.createHeadersPolicy(cognito, props.uploadOrigin)

    // One origin for the API, shared by the management and the recipient behaviours.
    const apiOrigin = new HttpOrigin(
      `${props.api.apiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}`,
      {
        protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
        originSslProtocols: [OriginSslPolicy.TLS_V1_2],
      },
    )
    // The recipient's page calls only JSON POSTs that need no credential (the link token is in
    // the body): the body and Content-Type reach the API, and nothing else of the browser's
    // (no cookies, no query string, not Host: API Gateway refuses a Host not its own) but the
    // holdings page's Authorization and Accept, through the cache policy above.
    // The holdings page's session travels in Authorization and its statement is asked for with
    // Accept. An origin request policy cannot forward Authorization, and a policy that forwards
    // every viewer header would put the person's User-Agent in the API's access log: these two
    // go as cache-key headers of a policy that keeps nothing (every answer is `no-store`, a second
    // at most otherwise, and a session's answers are keyed by its own Authorization).
    this.recipientCache = new CachePolicy(this, 'RecipientSessions', {
      cachePolicyName: `${Stack.of(this).stackName}-RecipientSessions-${Aws.REGION}`,
      comment: 'Recipient API: Authorization and Accept reach the API; nothing is kept',
      minTtl: Duration.seconds(0),
      defaultTtl: Duration.seconds(0),
      maxTtl: Duration.seconds(1),
      headerBehavior: CacheHeaderBehavior.allowList('Authorization', 'Accept'),
      queryStringBehavior: CacheQueryStringBehavior.none(),
      cookieBehavior: CacheCookieBehavior.none(),
    })
    this.recipientRequests = new OriginRequestPolicy(this, 'RecipientRequests', {
      // CloudFront's names are global to the account: the stack's and the region's, so the same
      // stage in two regions does not collide.
      originRequestPolicyName: `${Stack.of(this).stackName}-RecipientRequests-${Aws.REGION}`,
      comment: "Recipient page's API calls: the body and Content-Type, nothing else",
      headerBehavior: OriginRequestHeaderBehavior.allowList('Content-Type'),
      queryStringBehavior: OriginRequestQueryStringBehavior.none(),
      cookieBehavior: OriginRequestCookieBehavior.none(),
    })

    const domain = props.domain
    this.distribution = this.createDistribution(props.comment, domain, apiOrigin)

    this.origin = `https://${domain ? domain.domainName : this.distribution.distributionDomainName}`
    this.url = `${this.origin}${CONSOLE_PATH}`
    this.config = {
      grantApiUrl: props.grantApiUrl,
      region: Aws.REGION,
      userPoolId: props.userPoolId,
      userPoolClientId: props.userPoolClientId,
      cognitoEndpoint: `${cognito}/`,
    }

    // The deployment's function runs as a role of our own, with exactly what it does: read its
    // staged files, write app/ of the console bucket, invalidate this distribution, write its own
    // log group. Left to itself, BucketDeployment gives its function the AWSLambdaBasicExecutionRole
    // managed policy, read access to the whole bootstrap bucket and cloudfront:CreateInvalidation
    // on every distribution ("*"); handed the role without policy updates, it adds nothing.
    const deployLogs = new LogGroup(this, 'DeployLogs', {
      retention: props.logRetention,
      removalPolicy,
    })
    this.deployRole = this.createDeployRole(deployLogs)
    this.deployFiles(props.distDir, deployLogs)
    this.acknowledgeDeployFindings()
  }

  /** The bucket CloudFront's standard logs go to. */
  private createLogBucket(
    logRetention: number,
    removalPolicy: RemovalPolicy,
    autoDeleteObjects: boolean,
  ) {
    const logBucket = new Bucket(this, 'Logs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      // CloudFront's standard logs are delivered under an ACL grant, so the bucket must accept ACLs;
      // the bucket owner still owns every object.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(logRetention) }],
      removalPolicy,
      autoDeleteObjects,
    })
    Validations.of(logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This is the access-log bucket itself: logging its own access would log the log deliveries, in a loop.',
    })
    return logBucket
  }

  /** The console's files, read by CloudFront only. */
  private createFilesBucket(removalPolicy: RemovalPolicy, autoDeleteObjects: boolean) {
    const bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy,
      autoDeleteObjects,
    })
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only CloudFront reads the bucket (Origin Access Control) and its standard logs record every request; only the deployment writes it, recorded by CloudTrail and its own logs.',
    })
    return bucket
  }

  /** CSP, HSTS, nosniff, no framing (lib/console-site.ts). */
  private createHeadersPolicy(cognito: string, uploadOrigin: ConsoleHostingProps['uploadOrigin']) {
    const headers = CONSOLE_HEADER_SETTINGS
    return new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Issuer console: CSP, HSTS, nosniff, no framing (lib/console-site.ts)',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: contentSecurityPolicy(cognito, uploadOrigin),
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(headers.hstsMaxAgeSeconds),
          includeSubdomains: headers.hstsIncludeSubdomains,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: {
          frameOption: enumValue(HeadersFrameOption, headers.frameOptions),
          override: true,
        },
        referrerPolicy: {
          referrerPolicy: enumValue(HeadersReferrerPolicy, headers.referrerPolicy),
          override: true,
        },
      },
    })
  }

  /** The distribution: the files, /manage/* and the recipient's API on one origin. */
  private createDistribution(
    comment: string,
    domain: ConsoleHostingProps['domain'],
    apiOrigin: HttpOrigin,
  ) {
    const distribution = new Distribution(this, 'Distribution', {
      comment,
      defaultBehavior: {
        // READ only: without s3:ListBucket a missing file is S3's 403, and no listing can ever leak.
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headersPolicy,
        functionAssociations: [
          { function: this.viewerRequest, eventType: FunctionEventType.VIEWER_REQUEST },
        ],
      },
      additionalBehaviors: {
        '/manage/*': {
          origin: apiOrigin,
          // A POST sent over http must fail, not be redirected into a GET.
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          // Every viewer header but Host (API Gateway answers 403 to a Host not its own); the managed
          // policy is the one way to forward Authorization without putting it in a cache key.
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
        // The recipient's page (/offer, served by the default behaviour) calls its API here, on
        // its own origin: no CORS, and the page's CSP (connect-src 'self') holds.
        [`${RECIPIENT_API_PATH}*`]: {
          origin: apiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Answers hold one recipient's grants: never kept, never shared.
          cachePolicy: this.recipientCache,
          originRequestPolicy: this.recipientRequests,
        },
      },
      // CloudFront caches an error answer for 10 s unless told otherwise, whichever behaviour gave
      // it. TTL 0 and no page: every error passes through as the origin gave it, and only once.
      errorResponses: UNCACHED_ERROR_STATUSES.map((httpStatus) => ({
        httpStatus,
        ttl: Duration.seconds(0),
      })),
      httpVersion: HttpVersion.HTTP2_AND_3,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
      ...(domain
        ? {
            domainNames: [domain.domainName],
            certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
            minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
          }
        : {}),
    })
    Validations.of(distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'Issuers and their teams may work from any country; sign-in is invitation-only and every API call is authorised, so blocking countries would add nothing but support requests.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          "No WAF yet: the console and the recipient's page are static files, /manage/* is behind the JWT authorizer, the public /recipient/* routes limit attempts per link token and per address themselves, and the API stage throttles all. A web ACL (about $6 a month plus requests) can be attached later without changing the stack otherwise.",
      },
      ...(domain
        ? []
        : [
            {
              id: 'AwsSolutions-CFR4',
              reason:
                'Without a custom domain the distribution uses the *.cloudfront.net certificate, with which CloudFront does not let the minimum TLS version be chosen. With -c consoleDomainName and -c consoleCertificateArn it is TLSv1.2_2021.',
            },
          ]),
    )
    return distribution
  }

  /** The deployment function's own role (see deployFiles). */
  private createDeployRole(deployLogs: LogGroup) {
    const deployRole = new Role(this, 'DeployRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description:
        'Copies the built console into its bucket and invalidates index.html and config.json',
    })
    deployLogs.grantWrite(deployRole)
    // The deployment syncs the console's prefix: it lists, reads, writes and deletes under app/.
    this.bucket.grantReadWrite(deployRole, `${CONSOLE_PATH.slice(1)}*`)
    this.distribution.grant(
      deployRole,
      'cloudfront:CreateInvalidation',
      'cloudfront:GetInvalidation',
    )
    return deployRole
  }

  /** Hashed assets first (never pruned), then the pages and config.json, then their invalidation. */
  private deployFiles(distDir: string, deployLogs: LogGroup) {
    const role = this.deployRole.withoutPolicyUpdates()

    // Each source lets the role read exactly its staged object (the zip CDK uploads), which the
    // function copies down; nothing else of the bootstrap bucket, which holds every stack's code.
    const readable = (source: ISource): ISource => ({
      bind: (scope, context) => {
        const config = source.bind(scope, context)
        this.deployRole.addToPolicy(
          new PolicyStatement({
            actions: ['s3:GetObject'],
            resources: [config.bucket.arnForObjects(config.zipObjectKey)],
          }),
        )
        return config
      },
    })
    const assetsDir = join(distDir, CONSOLE_ASSETS_DIR)
    const assetFiles = existsSync(assetsDir)
      ? new BucketDeployment(this, 'DeployAssets', {
          sources: [readable(Source.asset(assetsDir))],
          destinationBucket: this.bucket,
          destinationKeyPrefix: `${CONSOLE_PATH.slice(1)}${CONSOLE_ASSETS_DIR}/`,
          cacheControl: [CacheControl.fromString(CONSOLE_CACHE_CONTROL.assets)],
          prune: false,
          role,
          logGroup: deployLogs,
          memoryLimit: 512,
        })
      : undefined
    const pageFiles = new BucketDeployment(this, 'DeployPages', {
      sources: [
        // config.json is this stack's own (below), whatever the build holds.
        readable(Source.asset(distDir, { exclude: [CONSOLE_ASSETS_DIR, 'config.json'] })),
        readable(Source.jsonData('config.json', this.config)),
      ],
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_PATH.slice(1),
      // The assets deployment's files: never pruned by this one.
      exclude: [`${CONSOLE_ASSETS_DIR}/*`],
      cacheControl: [CacheControl.fromString(CONSOLE_CACHE_CONTROL.pages)],
      distribution: this.distribution,
      // Every page of the console is index.html, the recipient's offer.html and holdings.html (the
      // viewer-request function rewrites before the cache), and assets never change: these are all
      // a deploy changes.
      distributionPaths: [
        `${CONSOLE_PATH}index.html`,
        `${CONSOLE_PATH}${OFFER_PAGE_FILE}`,
        `${CONSOLE_PATH}${HOLDINGS_PAGE_FILE}`,
        `${CONSOLE_PATH}config.json`,
      ],
      role,
      logGroup: deployLogs,
      memoryLimit: 512,
    })
    // The new index.html names the new assets: they must be there first.
    if (assetFiles) pageFiles.node.addDependency(assetFiles)
  }

  /** cdk-nag findings on the deployment, reviewed and accepted. */
  private acknowledgeDeployFindings() {
    Validations.of(this.deployRole).acknowledge(
      ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map(
        (action) => ({
          id: `AwsSolutions-IAM5[Action::${action}]`,
          reason:
            "Bucket.grantReadWrite's actions, on the console bucket only: the deployment syncs the app/ prefix, listing, reading, replacing and deleting what the new build no longer has.",
        }),
      ),
      {
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/app/*]`,
        reason:
          'The deployment writes any file of the build under app/, whose names (hashed assets) change with every build.',
      },
    )
    // BucketDeployment's function is a singleton at the stack's top level, shared by both deployments.
    for (const child of Stack.of(this).node.children) {
      if (
        child instanceof LambdaFunction &&
        child.node.id.startsWith('Custom::CDKBucketDeployment')
      ) {
        Validations.of(child).acknowledge({
          id: 'AwsSolutions-L1',
          reason:
            "The runtime of aws-cdk-lib's BucketDeployment handler is chosen and tested by aws-cdk-lib and moves with it; the function runs only while a deploy copies files.",
        })
      }
    }
  }
}
