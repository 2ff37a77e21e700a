import { RetentionDays } from 'aws-cdk-lib/aws-logs'
import { parseConsoleUrl } from '../functions/identity/identity-settings'

/** What `-c key=value` may set; everything else has a documented default. */
export type StageConfig = {
  stage: string
  /** Only an ephemeral stage's tables and logs are destroyed with the stack. */
  ephemeral: boolean
  /** Every route but the grant route: requests per second and burst (`throttleRate`, `throttleBurst`). */
  throttling: { rateLimit: number; burstLimit: number }
  /**
   * The grant route (`POST /programs/{programId}/grant-tokens`) on its own
   * (`grantThrottleRate`, `grantThrottleBurst`), sized to the README's capacity figure.
   */
  grantThrottling: { rateLimit: number; burstLimit: number }
  alarmEmail?: string
  logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR'
  logRetention: RetentionDays
  /** p99 latency of the API, in milliseconds, above which the latency alarm fires. */
  latencyAlarmMs: number
  /**
   * The management console's address, linked from invitation e-mails (`-c consoleUrl=...`). Absent:
   * the stack's own console (its custom domain, or its CloudFront address), under /app/.
   */
  consoleUrl?: string
  /**
   * A domain of your own for the console's CloudFront distribution, with its ACM certificate in
   * us-east-1 (`-c consoleDomainName=... -c consoleCertificateArn=...`). Absent: CloudFront's own.
   */
  consoleDomain?: { domainName: string; certificateArn: string }
  /** Cognito e-mails through SES (`-c sesFromEmail=... [-c sesRegion=...]`); its own sender otherwise. */
  ses?: { fromEmail: string; region?: string }
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const

/**
 * The grant route's default throttle: twice the 1,000 grants a second README "Capacity on real
 * DynamoDB" says a plain deploy takes on one program (clients' retries fit beside it), about what
 * a fresh table's partitions serve in the contention model, and under API Gateway's default
 * account quota (10,000 requests a second, burst 5,000, per region, shared by every API).
 * test/infra/stack.test.ts ties the template's value to the README's figure.
 */
export const GRANT_THROTTLE_DEFAULTS = { rateLimit: 2_000, burstLimit: 2_000 } as const

/**
 * Reads the stage's settings from CDK context (`cdk deploy -c stage=dev -c ephemeral=true`).
 * Invalid values stop the synth with a message instead of deploying something surprising.
 */
export const stageConfig = (context: (key: string) => unknown): StageConfig => {
  const text = (key: string) => {
    const value = context(key)
    return value === undefined || value === null || value === '' ? undefined : String(value)
  }
  const positiveInt = (key: string, fallback: number) => {
    const raw = text(key)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`Context ${key} must be a positive whole number, got ${JSON.stringify(raw)}`)
    }
    return value
  }
  const stage = text('stage') ?? 'prod'
  if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) {
    throw new Error(
      `Context stage must be lower-case letters, digits and dashes (got ${JSON.stringify(stage)})`,
    )
  }
  const ephemeralRaw = text('ephemeral') ?? 'false'
  if (ephemeralRaw !== 'true' && ephemeralRaw !== 'false') {
    throw new Error(`Context ephemeral must be true or false, got ${JSON.stringify(ephemeralRaw)}`)
  }
  if (stage === 'prod' && ephemeralRaw === 'true') {
    throw new Error('The prod stage cannot be ephemeral: its tables are always retained.')
  }
  const logLevel = (text('logLevel') ?? 'INFO').toUpperCase()
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new Error(`Context logLevel must be one of ${LOG_LEVELS.join(', ')}, got ${logLevel}`)
  }
  const alarmEmail = text('alarmEmail')
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`Context alarmEmail is not an e-mail address: ${alarmEmail}`)
  }
  const consoleUrl = (() => {
    const raw = text('consoleUrl')
    if (raw === undefined) return undefined
    try {
      return parseConsoleUrl(raw)
    } catch (error) {
      throw new Error(`Context ${(error as Error).message}`)
    }
  })()
  const consoleDomainName = text('consoleDomainName')?.toLowerCase()
  const consoleCertificateArn = text('consoleCertificateArn')
  if ((consoleDomainName === undefined) !== (consoleCertificateArn === undefined)) {
    throw new Error(
      'Context consoleDomainName and consoleCertificateArn go together: the domain needs its certificate',
    )
  }
  if (
    consoleDomainName !== undefined &&
    !/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/.test(
      consoleDomainName,
    )
  ) {
    throw new Error(`Context consoleDomainName is not a domain name: ${consoleDomainName}`)
  }
  // CloudFront takes certificates from us-east-1 only, whatever the stack's region.
  if (
    consoleCertificateArn !== undefined &&
    !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]{36}$/.test(consoleCertificateArn)
  ) {
    throw new Error(
      `Context consoleCertificateArn must be an ACM certificate ARN in us-east-1 (CloudFront's region), got ${consoleCertificateArn}`,
    )
  }
  const sesFromEmail = text('sesFromEmail')
  const sesRegion = text('sesRegion')
  if (sesFromEmail !== undefined && !/^[^@\s<>",]+@[^@\s<>",]+\.[^@\s<>",]+$/.test(sesFromEmail)) {
    throw new Error(`Context sesFromEmail is not an e-mail address: ${sesFromEmail}`)
  }
  if (sesRegion !== undefined && sesFromEmail === undefined) {
    throw new Error('Context sesRegion needs sesFromEmail: it is the region of that SES identity')
  }
  if (sesRegion !== undefined && !/^[a-z]{2}(-[a-z]+)+-\d$/.test(sesRegion)) {
    throw new Error(`Context sesRegion is not an AWS region name: ${sesRegion}`)
  }
  return {
    stage,
    ephemeral: ephemeralRaw === 'true',
    throttling: {
      rateLimit: positiveInt('throttleRate', 100),
      burstLimit: positiveInt('throttleBurst', 200),
    },
    grantThrottling: {
      rateLimit: positiveInt('grantThrottleRate', GRANT_THROTTLE_DEFAULTS.rateLimit),
      burstLimit: positiveInt('grantThrottleBurst', GRANT_THROTTLE_DEFAULTS.burstLimit),
    },
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    logLevel: logLevel as StageConfig['logLevel'],
    logRetention: ephemeralRaw === 'true' ? RetentionDays.ONE_WEEK : RetentionDays.THREE_MONTHS,
    latencyAlarmMs: positiveInt('latencyAlarmMs', 1000),
    ...(consoleUrl === undefined ? {} : { consoleUrl }),
    ...(consoleDomainName === undefined || consoleCertificateArn === undefined
      ? {}
      : {
          consoleDomain: { domainName: consoleDomainName, certificateArn: consoleCertificateArn },
        }),
    ...(sesFromEmail === undefined
      ? {}
      : {
          ses: {
            fromEmail: sesFromEmail,
            ...(sesRegion === undefined ? {} : { region: sesRegion }),
          },
        }),
  }
}

export const stackName = (stage: string) => `VirtualShares-${stage}`
