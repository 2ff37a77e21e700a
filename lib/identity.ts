import { Annotations, Aws, Duration, RemovalPolicy, Validations } from 'aws-cdk-lib'
import {
  AccountRecovery,
  ClientAttributes,
  FeaturePlan,
  Mfa,
  UserPool,
  type UserPoolClient,
  UserPoolEmail,
} from 'aws-cdk-lib/aws-cognito'
import { PolicyStatement } from 'aws-cdk-lib/aws-iam'
import type { RetentionDays } from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import { ENV } from '../functions/env-names'
import {
  CONSOLE_URL_PLACEHOLDER,
  IDENTITY_ENV,
  PASSWORD_POLICY,
  TOKEN_VALIDITY,
} from '../functions/identity/identity-settings'
import { ApiFunction } from './api-function'

/** Cognito sends through SES from this verified identity instead of its own sender. */
export type SesSender = {
  /** The From address; it, or its domain, must be a verified SES identity. */
  fromEmail: string
  /** The SES region of that identity. Default: the stack's region. */
  region?: string
}

export type IdentityProps = {
  projectRoot: string
  /** Ephemeral stages drop the user pool (and its users) with the stack; others keep it. */
  ephemeral: boolean
  logRetention: RetentionDays
  logLevel: string
  serviceName: string
  /** The console's address, linked from the invitation and password-reset e-mails. */
  consoleUrl: string
  /** Send through SES; without it, Cognito's default sender (no set-up, low daily quota). */
  ses?: SesSender
}

/** Cognito waits at most 5 seconds for a trigger; rendering takes milliseconds. */
const TRIGGER_TIMEOUT = Duration.seconds(5)

/** The custom-message trigger's handler module (the stack declares every function's entry). */
export const CUSTOM_MESSAGE_ENTRY = 'functions/handlers/custom-message.handler.ts'

/**
 * Who may use the management console: an invitation-only Cognito user pool (operators create
 * users; nobody signs up), its browser app client, and the CustomMessage trigger that writes the
 * invitation and password-reset e-mails. What a JWT authorizer needs later is public: the pool, the
 * client and the issuer URL.
 */
export class Identity extends Construct {
  readonly userPool: UserPool
  readonly userPoolClient: UserPoolClient
  /** `https://cognito-idp.<region>.amazonaws.com/<pool id>`: the tokens' `iss`. */
  readonly issuerUrl: string
  readonly customMessage: ApiFunction
  private readonly mailSettings: Pick<IdentityProps, 'consoleUrl' | 'ses'>

  constructor(scope: Construct, id: string, props: IdentityProps) {
    super(scope, id)
    this.mailSettings = { consoleUrl: props.consoleUrl, ...(props.ses ? { ses: props.ses } : {}) }

    // ApiFunction fits a trigger as it is: Node.js 24 on arm64, the shared esbuild settings, its
    // own log group with retention, and a role that can write that log group and nothing else.
    // Nothing grants it any DynamoDB action: it only renders text.
    this.customMessage = new ApiFunction(this, 'CustomMessage', {
      projectRoot: props.projectRoot,
      entry: CUSTOM_MESSAGE_ENTRY,
      environment: {
        [IDENTITY_ENV.consoleUrl]: props.consoleUrl,
        // The trigger returns a subject only when the pool sends through SES (see
        // functions/handlers/custom-message.handler.ts for why).
        [IDENTITY_ENV.emailSending]: props.ses ? 'DEVELOPER' : 'COGNITO_DEFAULT',
      },
      memorySize: 256,
      timeout: TRIGGER_TIMEOUT,
      logRetention: props.logRetention,
      ephemeral: props.ephemeral,
      logLevel: props.logLevel,
      serviceName: props.serviceName,
      logicalId: 'CustomMessageFunction',
    })
    Validations.of(this.customMessage.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'The runtime is pinned to nodejs24.x, the version the product supports and tests; moving to a newer runtime is a deliberate, tested change, not an automatic one.',
    })
    if (props.consoleUrl === CONSOLE_URL_PLACEHOLDER) {
      Annotations.of(this).addWarningV2(
        'virtual-shares:consoleUrlNotSet',
        `Invitation e-mails will link to ${CONSOLE_URL_PLACEHOLDER}: deploy with -c consoleUrl=https://<your console>`,
      )
    }

    this.userPool = new UserPool(this, 'UserPool', {
      // Invitation only: operators create users (AdminCreateUser); the pool refuses SignUp.
      selfSignUpEnabled: false,
      // The e-mail address is the user name, whatever its case.
      signInAliases: { email: true, username: false },
      signInCaseSensitive: false,
      // An invited user's address is verified (the inviter sets email_verified, and the invitation
      // reached it); a changed address is verified before it replaces the old one.
      autoVerify: { email: true },
      keepOriginal: { email: true },
      standardAttributes: { email: { required: true, mutable: true } },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      passwordPolicy: {
        // See PASSWORD_POLICY: 15+ characters, no character classes (NIST SP 800-63B-4).
        minLength: PASSWORD_POLICY.minLength,
        requireLowercase: PASSWORD_POLICY.requireLowercase,
        requireUppercase: PASSWORD_POLICY.requireUppercase,
        requireDigits: PASSWORD_POLICY.requireDigits,
        requireSymbols: PASSWORD_POLICY.requireSymbols,
        tempPasswordValidity: Duration.days(PASSWORD_POLICY.temporaryPasswordValidityDays),
      },
      // Users may add an authenticator app (TOTP); no SMS: no phone numbers, no SNS spend, and
      // SMS codes can be intercepted.
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      // Essentials (free up to 10,000 monthly active users) keeps access-token customisation and
      // passwordless sign-in available; Plus, which threat protection needs, is acknowledged below.
      featurePlan: FeaturePlan.ESSENTIALS,
      email: props.ses
        ? UserPoolEmail.withSES({
            fromEmail: props.ses.fromEmail,
            // The stack is environment-agnostic: the deploy's region unless the identity is elsewhere.
            sesRegion: props.ses.region ?? Aws.REGION,
          })
        : UserPoolEmail.withCognito(),
      // No userInvitation / verification texts for our messages: a template set on the pool can
      // override what the trigger writes, and the invitation template needs SES anyway.
      lambdaTriggers: { customMessage: this.customMessage.fn },
      // Same rule as the tables: only an ephemeral stage loses its users with the stack.
      removalPolicy: props.ephemeral ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      deletionProtection: !props.ephemeral,
    })
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG1',
        reason:
          'Passwords need 15 or more characters and no character classes, as NIST SP 800-63B-4 (3.1.1.2) asks: composition rules add little entropy and lead to predictable patterns; length does the work.',
      },
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is OPTIONAL (TOTP only): invited operators sign in with the temporary password and turn on an authenticator app from the console; REQUIRED would make the first sign-in an MFA_SETUP challenge the console does not handle yet.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'Threat protection needs the Plus plan, billed per monthly active user with no free allowance on every stage, dev stages included; an invitation-only pool with no sign-up, optional TOTP and a few known operators does not need it yet. Switching the feature plan later keeps users and settings.',
      },
    )

    this.userPoolClient = this.userPool.addClient('ConsoleClient', {
      // The console runs in the browser, which cannot keep a secret.
      generateSecret: false,
      // USER_PASSWORD_AUTH (plus REFRESH_TOKEN_AUTH, which CDK adds): the console sends the
      // password over TLS to Cognito. No SRP: one sign-in flow to build, emulate locally and test.
      authFlows: { userPassword: true },
      // No hosted UI, so no OAuth flows, callback URLs or scopes.
      disableOAuth: true,
      accessTokenValidity: Duration.minutes(TOKEN_VALIDITY.accessTokenMinutes),
      idTokenValidity: Duration.minutes(TOKEN_VALIDITY.idTokenMinutes),
      refreshTokenValidity: Duration.days(TOKEN_VALIDITY.refreshTokenDays),
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      // Users may change their display name only: not their address, and not any attribute a
      // later authorizer might trust (only AdminUpdateUserAttributes can).
      writeAttributes: new ClientAttributes().withStandardAttributes({ fullname: true }),
    })

    this.issuerUrl = `https://cognito-idp.${Aws.REGION}.${Aws.URL_SUFFIX}/${this.userPool.userPoolId}`
  }

  /**
   * Lets a function send the service's own e-mail (functions/mail/mailer.ts) from the stage's SES
   * identity, the one the pool sends through: MAIL_FROM (and MAIL_SES_REGION when the identity is
   * in another region) and ses:SendEmail on that identity only (the address's identity and its
   * domain's: either may be the verified one). The console's address (CONSOLE_URL) in any case,
   * for the links. Without an SES identity (the default deploy) nothing more: the function then
   * sends no mail of its own and logs so.
   */
  allowServiceMail(fn: ApiFunction) {
    fn.fn.addEnvironment(ENV.consoleUrl, this.mailSettings.consoleUrl)
    const ses = this.mailSettings.ses
    if (!ses) return
    fn.fn.addEnvironment(ENV.mailFrom, ses.fromEmail)
    if (ses.region !== undefined) fn.fn.addEnvironment(ENV.mailSesRegion, ses.region)
    fn.role.addToPolicy(
      new PolicyStatement({ actions: ['ses:SendEmail'], resources: this.sesIdentityArns(ses) }),
    )
  }

  /**
   * Lets a consumer send the offer mail (functions/consumers.ts `mail: true`): MAIL_FROM as above,
   * and the configuration set whose bounce and complaint events reach the MailEvents function
   * (MAIL_CONFIGURATION_SET); ses:SendEmail on the identity and on that configuration set only
   * (SESv2 authorises a send against both). The configuration set lives in the stack's region: an
   * identity in another region (`-c sesRegion`) cannot use it, so the mail then goes without one
   * and no bounce reaches the service (the synth warns). No SES identity: nothing is granted and
   * the mailer has no sender (the synth warns too). `paced`: the consumer paces its sends by the
   * account's sending rate (the offer mailer) and may read it (ses:GetAccount); the batch worker's
   * one notice a batch is not paced and gets no GetAccount.
   */
  allowOfferMail(
    fn: ApiFunction,
    configurationSet: { name: string; arn: string },
    { paced }: { paced: boolean },
  ) {
    const ses = this.mailSettings.ses
    if (!ses) {
      Annotations.of(fn).addWarningV2(
        'virtual-shares:noOfferMailSender',
        'No SES identity: LIVE offer e-mails will not be sent. Deploy with -c sesFromEmail=<verified address> (docs/deploying.md, "Offer e-mail").',
      )
      return
    }
    fn.fn.addEnvironment(ENV.mailFrom, ses.fromEmail)
    // The mailer paces its sends by the account's sending rate (SESv2 GetAccount's MaxSendRate:
    // 1 a second in the sandbox, more once production access is granted). GetAccount has no
    // resource in IAM: it reads the account's own quotas, nothing else.
    if (paced) {
      fn.role.addToPolicy(new PolicyStatement({ actions: ['ses:GetAccount'], resources: ['*'] }))
      Validations.of(fn.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          "ses:GetAccount only (the account's sending quota and rate, which the offer mailer paces itself by): IAM has no resource for it. Sending is allowed on the stage's identity and configuration set only.",
      })
    }
    if (ses.region !== undefined) {
      fn.fn.addEnvironment(ENV.mailSesRegion, ses.region)
      Annotations.of(fn).addWarningV2(
        'virtual-shares:offerMailOtherRegion',
        `The SES identity is in ${ses.region} (-c sesRegion): offer e-mail is sent without the stack's configuration set, so bounces and complaints do not reach the service. Use an identity in the stack's region for them.`,
      )
      fn.role.addToPolicy(
        new PolicyStatement({ actions: ['ses:SendEmail'], resources: this.sesIdentityArns(ses) }),
      )
      return
    }
    fn.fn.addEnvironment(ENV.mailConfigurationSet, configurationSet.name)
    fn.role.addToPolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [...this.sesIdentityArns(ses), configurationSet.arn],
      }),
    )
  }

  /** The address's identity and its domain's: either may be the verified one. */
  private sesIdentityArns(ses: SesSender) {
    const region = ses.region ?? Aws.REGION
    const domain = ses.fromEmail.slice(ses.fromEmail.lastIndexOf('@') + 1)
    return [ses.fromEmail, domain].map(
      (identity) => `arn:${Aws.PARTITION}:ses:${region}:${Aws.ACCOUNT_ID}:identity/${identity}`,
    )
  }
}
