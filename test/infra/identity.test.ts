import { App, Stack } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { RetentionDays } from 'aws-cdk-lib/aws-logs'
import { ENV } from '../../functions/env-names'
import {
  CONSOLE_URL_PLACEHOLDER,
  IDENTITY_ENV,
  PASSWORD_POLICY,
} from '../../functions/identity/identity-settings'
import { Identity } from '../../lib/identity'
import { INLINE_POLICY_NAME } from '../../lib/inline-policy-role'
import { stageConfig } from '../../lib/stage-config'
import {
  type CfnTemplate,
  PROJECT_ROOT,
  resource,
  resourcesOfType,
  rolePolicies,
  synth,
} from '../support/synth'

// `cdk deploy` as it is, and an ephemeral dev stage with a console address and SES.
const prod = synth()
const dev = synth({
  stage: 'dev',
  ephemeral: 'true',
  consoleUrl: 'https://console.dev.example.com/',
  sesFromEmail: 'no-reply@example.com',
  sesRegion: 'eu-west-1',
})

const TRIGGER = 'CustomMessageFunction'

/** The logical id of the one resource of a type the identity construct adds. */
const idOf = (t: CfnTemplate, type: string) => {
  const found = resourcesOfType(t, type).filter(([id]) => id.startsWith('Identity'))
  if (found.length !== 1) throw new Error(`expected one ${type} in Identity, got ${found.length}`)
  return (found[0] as [string, unknown])[0]
}
const poolOf = (t: CfnTemplate) => resource(t, idOf(t, 'AWS::Cognito::UserPool'))
const clientOf = (t: CfnTemplate) => resource(t, idOf(t, 'AWS::Cognito::UserPoolClient'))
const getAtt = (id: string, attribute: string) => ({ 'Fn::GetAtt': [id, attribute] })

describe('user pool', () => {
  const pool = poolOf(prod.json).Properties

  it('is invitation-only, signs in by e-mail whatever its case, recovers by e-mail only', () => {
    expect(pool.AdminCreateUserConfig).toMatchObject({ AllowAdminCreateUserOnly: true })
    expect(pool.UsernameAttributes).toEqual(['email'])
    expect(pool.AliasAttributes).toBeUndefined()
    expect(pool.UsernameConfiguration).toEqual({ CaseSensitive: false })
    expect(pool.AutoVerifiedAttributes).toEqual(['email'])
    expect(pool.AccountRecoverySetting).toEqual({
      RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }],
    })
  })

  it('asks for long passwords; temporary passwords last 7 days', () => {
    const policy = (pool.Policies as { PasswordPolicy: Record<string, unknown> }).PasswordPolicy
    expect(policy.MinimumLength).toBeGreaterThanOrEqual(12)
    expect(policy).toEqual({
      MinimumLength: PASSWORD_POLICY.minLength,
      RequireLowercase: false,
      RequireUppercase: false,
      RequireNumbers: false,
      RequireSymbols: false,
      TemporaryPasswordValidityDays: 7,
    })
  })

  it('offers optional TOTP MFA and nothing by SMS', () => {
    expect(pool.MfaConfiguration).toBe('OPTIONAL')
    expect(pool.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA'])
    expect(pool.SmsConfiguration).toBeUndefined()
  })

  it('sends e-mail with Cognito’s own sender, leaving the invitation text to the trigger', () => {
    expect(pool.EmailConfiguration).toEqual({ EmailSendingAccount: 'COGNITO_DEFAULT' })
    // A template on the pool could override what the trigger writes (and needs SES).
    expect(
      (pool.AdminCreateUserConfig as Record<string, unknown>).InviteMessageTemplate,
    ).toBeUndefined()
    expect(pool.UserPoolTier).toBe('ESSENTIALS')
    expect(pool.UserPoolAddOns).toBeUndefined()
    expect(pool.UserPoolName).toBeUndefined()
  })

  it('sends through the SES identity given by sesFromEmail and sesRegion', () => {
    expect(poolOf(dev.json).Properties.EmailConfiguration).toEqual({
      EmailSendingAccount: 'DEVELOPER',
      From: 'no-reply@example.com',
      SourceArn: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':ses:eu-west-1:',
            { Ref: 'AWS::AccountId' },
            ':identity/no-reply@example.com',
          ],
        ],
      },
    })
  })

  it("uses the SES identity in the stack's own region when sesRegion is not given", () => {
    // As test/support/synth.ts synthesizes: the trigger's code is not bundled (this test reads
    // the pool) and CDK's CloudFormation linter, which cannot fail a synth, does not run.
    const app = new App({
      builtinCloudFormationValidation: false,
      context: { 'aws:cdk:bundling-stacks': [] },
    })
    const stack = new Stack(app, 'SesDefaultRegion')
    new Identity(stack, 'Identity', {
      projectRoot: PROJECT_ROOT,
      ephemeral: true,
      logRetention: RetentionDays.ONE_WEEK,
      logLevel: 'INFO',
      serviceName: 'test',
      consoleUrl: 'https://console.example.com/',
      ses: { fromEmail: 'no-reply@example.com' },
    })
    const t = Template.fromStack(stack).toJSON() as CfnTemplate
    expect(poolOf(t).Properties.EmailConfiguration).toMatchObject({
      EmailSendingAccount: 'DEVELOPER',
      SourceArn: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            ':ses:',
            { Ref: 'AWS::Region' },
            ':',
            { Ref: 'AWS::AccountId' },
            ':identity/no-reply@example.com',
          ],
        ],
      },
    })
  })

  it('is retained with deletion protection on prod, destroyed with an ephemeral stage', () => {
    const kept = poolOf(prod.json)
    expect(kept.DeletionPolicy).toBe('Retain')
    expect(kept.UpdateReplacePolicy).toBe('Retain')
    expect(kept.Properties.DeletionProtection).toBe('ACTIVE')
    const dropped = poolOf(dev.json)
    expect(dropped.DeletionPolicy).toBe('Delete')
    expect(dropped.Properties.DeletionProtection).toBe('INACTIVE')
  })
})

describe('console app client', () => {
  const client = clientOf(prod.json).Properties

  it('has no secret, password and refresh flows only, and no OAuth', () => {
    expect(client.GenerateSecret).toBe(false)
    expect([...(client.ExplicitAuthFlows as string[])].sort()).toEqual([
      'ALLOW_REFRESH_TOKEN_AUTH',
      'ALLOW_USER_PASSWORD_AUTH',
    ])
    expect(client.AllowedOAuthFlowsUserPoolClient).toBe(false)
    expect(client.AllowedOAuthFlows).toBeUndefined()
    expect(client.CallbackURLs).toBeUndefined()
    expect(client.UserPoolId).toEqual({ Ref: idOf(prod.json, 'AWS::Cognito::UserPool') })
  })

  it('issues 60-minute access and ID tokens and 30-day refresh tokens', () => {
    // Every validity is counted in minutes, so 60 is an hour and 43,200 is 30 days.
    expect(client.TokenValidityUnits).toEqual({
      AccessToken: 'minutes',
      IdToken: 'minutes',
      RefreshToken: 'minutes',
    })
    expect(client.AccessTokenValidity).toBe(60)
    expect(client.IdTokenValidity).toBe(60)
    expect(client.RefreshTokenValidity).toBe(30 * 24 * 60)
  })

  it('hides whether a user exists, can revoke tokens, and lets users write their name only', () => {
    expect(client.PreventUserExistenceErrors).toBe('ENABLED')
    expect(client.EnableTokenRevocation).toBe(true)
    expect(client.WriteAttributes).toEqual(['name'])
  })
})

describe('CustomMessage trigger', () => {
  const t = prod.json
  const pool = idOf(t, 'AWS::Cognito::UserPool')

  it('is the pool’s only trigger', () => {
    expect(poolOf(t).Properties.LambdaConfig).toEqual({ CustomMessage: getAtt(TRIGGER, 'Arn') })
  })

  it('may be invoked by Cognito for this pool only', () => {
    const permissions = resourcesOfType(t, 'AWS::Lambda::Permission')
      .map(([, p]) => p.Properties)
      .filter((p) => JSON.stringify(p.FunctionName) === JSON.stringify(getAtt(TRIGGER, 'Arn')))
    expect(permissions).toEqual([
      {
        Action: 'lambda:InvokeFunction',
        FunctionName: getAtt(TRIGGER, 'Arn'),
        Principal: 'cognito-idp.amazonaws.com',
        SourceArn: getAtt(pool, 'Arn'),
      },
    ])
  })

  it('runs nodejs24.x on arm64 within Cognito’s 5 seconds, with its own log group', () => {
    const fn = resource(t, TRIGGER)
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 5,
    })
    const logs = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref
    expect(resource(t, logs).Properties.RetentionInDays).toBe(90)
    expect(resource(t, logs).DeletionPolicy).toBe('Retain')
    const devLogs = (
      resource(dev.json, TRIGGER).Properties.LoggingConfig as {
        LogGroup: { Ref: string }
      }
    ).LogGroup.Ref
    expect(resource(dev.json, devLogs).Properties.RetentionInDays).toBe(7)
    expect(resource(dev.json, devLogs).DeletionPolicy).toBe('Delete')
  })

  it('gets the console address, and no table name, from its environment', () => {
    const variables = (env: CfnTemplate) =>
      (resource(env, TRIGGER).Properties.Environment as { Variables: Record<string, unknown> })
        .Variables
    // The console this stack hosts (test/infra/console-hosting.test.ts), unless -c consoleUrl.
    const distribution = resourcesOfType(t, 'AWS::CloudFront::Distribution')[0]?.[0] as string
    expect(variables(t)).toEqual({
      [IDENTITY_ENV.consoleUrl]: {
        'Fn::Join': ['', ['https://', getAtt(distribution, 'DomainName'), '/app/']],
      },
      // Cognito's own sender: the trigger returns no subject (custom-message.ts says why).
      [IDENTITY_ENV.emailSending]: 'COGNITO_DEFAULT',
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'virtual-share-grants',
      POWERTOOLS_LOG_LEVEL: 'INFO',
    })
    expect(variables(dev.json)[IDENTITY_ENV.consoleUrl]).toBe('https://console.dev.example.com/')
    // Through SES: the subject too.
    expect(variables(dev.json)[IDENTITY_ENV.emailSending]).toBe('DEVELOPER')
  })

  it('has a role that writes its own log group and can touch no DynamoDB at all', () => {
    const roleId = (resource(t, TRIGGER).Properties.Role as { 'Fn::GetAtt': [string] })[
      'Fn::GetAtt'
    ][0]
    const role = resource(t, roleId)
    expect(role.Properties.ManagedPolicyArns).toBeUndefined()
    // Its one inline policy (lib/inline-policy-role.ts), no policy resource of its own.
    expect((role.Properties.Policies as { PolicyName: string }[]).map((p) => p.PolicyName)).toEqual(
      [INLINE_POLICY_NAME],
    )
    const statements = rolePolicies(t)
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(
        ([, p]) =>
          (
            p.Properties.PolicyDocument as {
              Statement: { Action: string | string[]; Resource: unknown }[]
            }
          ).Statement,
      )
    const actions = statements.flatMap((s) => [s.Action].flat())
    expect(actions.filter((a) => a.toLowerCase().startsWith('dynamodb'))).toEqual([])
    expect(actions.sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents'])
    const logs = (resource(t, TRIGGER).Properties.LoggingConfig as { LogGroup: { Ref: string } })
      .LogGroup.Ref
    for (const s of statements) {
      expect(s.Resource).toEqual(getAtt(logs, 'Arn'))
    }
  })
})

/** The IAM statements of a function's role (its own policies). */
const statementsOf = (t: CfnTemplate, fnId: string) => {
  const roleId = (resource(t, fnId).Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]
  return rolePolicies(t)
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(
      ([, p]) =>
        (
          p.Properties.PolicyDocument as {
            Statement: { Action: string | string[]; Resource: unknown }[]
          }
        ).Statement,
    )
}
const variablesOf = (t: CfnTemplate, fnId: string) =>
  (resource(t, fnId).Properties.Environment as { Variables: Record<string, unknown> }).Variables

describe("the service's own e-mail (functions/mail)", () => {
  const MAILING = ['InviteMemberFunction', 'ResendInvitationFunction']
  const sesArn = (identity: string) => ({
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':ses:eu-west-1:',
        { Ref: 'AWS::AccountId' },
        `:identity/${identity}`,
      ],
    ],
  })

  it('with an SES identity: the member functions that e-mail get MAIL_FROM and ses:SendEmail on that identity only', () => {
    for (const fn of MAILING) {
      expect(variablesOf(dev.json, fn)).toMatchObject({
        [ENV.mailFrom]: 'no-reply@example.com',
        [ENV.mailSesRegion]: 'eu-west-1',
        [ENV.consoleUrl]: 'https://console.dev.example.com/',
      })
      const ses = statementsOf(dev.json, fn).filter((s) =>
        JSON.stringify(s.Action).includes('ses:'),
      )
      expect(ses).toEqual([
        {
          Action: 'ses:SendEmail',
          Effect: 'Allow',
          Resource: [sesArn('no-reply@example.com'), sesArn('example.com')],
        },
      ])
    }
    // No other function may send mail but the consumers that do: the offer mailer, the batch
    // worker, which e-mails a batch's committer, and the webhook sender, which e-mails an issuer's
    // owners when it disables a failing endpoint (test/infra/grant-pipeline.test.ts).
    const senders = rolePolicies(dev.json)
      .filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('ses:'))
      .map(([, p]) => (p.Properties.Roles as { Ref: string }[])[0]?.Ref)
    const roleOf = (fnId: string) =>
      (resource(dev.json, fnId).Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]
    expect(senders.sort()).toEqual(
      [...MAILING, 'OfferMailerFunction', 'GrantBatchWorkerFunction', 'WebhookSenderFunction']
        .map(roleOf)
        .sort(),
    )
  })

  it('without one (the default deploy): no sender, no SES permission, the console address for links', () => {
    for (const fn of MAILING) {
      const variables = variablesOf(prod.json, fn)
      expect(variables[ENV.mailFrom]).toBeUndefined()
      expect(variables[ENV.mailSinkFile]).toBeUndefined()
      expect(variables[ENV.consoleUrl]).toEqual(
        variablesOf(prod.json, TRIGGER)[IDENTITY_ENV.consoleUrl],
      )
    }
    expect(JSON.stringify(prod.json.Resources)).not.toContain('ses:SendEmail')
  })
})

describe('outputs and exports', () => {
  const t = prod.json
  const pool = idOf(t, 'AWS::Cognito::UserPool')
  const issuer = {
    'Fn::Join': [
      '',
      [
        'https://cognito-idp.',
        { Ref: 'AWS::Region' },
        '.',
        { Ref: 'AWS::URLSuffix' },
        '/',
        { Ref: pool },
      ],
    ],
  }

  it('outputs the pool id, the client id and the issuer URL', () => {
    expect(t.Outputs.UserPoolId?.Value).toEqual({ Ref: pool })
    expect(t.Outputs.UserPoolClientId?.Value).toEqual({
      Ref: idOf(t, 'AWS::Cognito::UserPoolClient'),
    })
    expect(t.Outputs.UserPoolIssuer?.Value).toEqual(issuer)
  })

  it('exposes the pool, the client and the issuer URL for a JWT authorizer', () => {
    // stack.identity's userPool.userPoolId, userPoolClient.userPoolClientId and issuerUrl,
    // resolved in the synthesized stack (test/support/synth.ts).
    const { exposed } = prod
    expect(exposed.userPoolId).toEqual({ Ref: pool })
    expect(exposed.userPoolClientId).toEqual({
      Ref: idOf(t, 'AWS::Cognito::UserPoolClient'),
    })
    expect(exposed.issuerUrl).toEqual(issuer)
  })
})

describe('stage context', () => {
  const config = (context: Record<string, string>) => stageConfig((key) => context[key])

  it('leaves consoleUrl to the stack’s own console by default, and sends with Cognito', () => {
    expect(config({}).consoleUrl).toBeUndefined()
    expect(config({}).ses).toBeUndefined()
  })

  it('warns at synth only when consoleUrl is the placeholder', () => {
    const aboutConsoleUrl = (path: unknown) => ({
      level: 'warning',
      path,
      text: expect.stringMatching(/consoleUrl/),
    })
    const placeholder = synth({ stage: 'placeholder', consoleUrl: CONSOLE_URL_PLACEHOLDER })
    expect(placeholder.warnings).toContainEqual(
      aboutConsoleUrl('/VirtualShares-placeholder/Identity'),
    )
    for (const { warnings } of [prod, dev]) {
      expect(warnings).not.toContainEqual(aboutConsoleUrl(expect.any(String)))
    }
  })

  it('takes an https console address, or http on the loopback for a local console', () => {
    expect(config({ consoleUrl: 'https://console.example.com' }).consoleUrl).toBe(
      'https://console.example.com/',
    )
    expect(config({ consoleUrl: 'http://localhost:5173/' }).consoleUrl).toBe(
      'http://localhost:5173/',
    )
    expect(() => config({ consoleUrl: 'http://console.example.com/' })).toThrow(
      /Context consoleUrl must be an https/,
    )
    expect(() => config({ consoleUrl: 'console.example.com' })).toThrow(/absolute URL/)
    expect(() => config({ consoleUrl: 'javascript:alert(1)' })).toThrow(/https/)
    expect(() => config({ consoleUrl: 'https://user:pw@console.example.com/' })).toThrow(
      /user name or password/,
    )
  })

  it('switches to SES with sesFromEmail (and sesRegion), and checks both', () => {
    expect(config({ sesFromEmail: 'no-reply@example.com' }).ses).toEqual({
      fromEmail: 'no-reply@example.com',
    })
    expect(config({ sesFromEmail: 'no-reply@example.com', sesRegion: 'us-east-1' }).ses).toEqual({
      fromEmail: 'no-reply@example.com',
      region: 'us-east-1',
    })
    expect(() => config({ sesFromEmail: 'Shares <no-reply@example.com>' })).toThrow(
      /sesFromEmail is not an e-mail address/,
    )
    expect(() => config({ sesRegion: 'eu-west-1' })).toThrow(/sesRegion needs sesFromEmail/)
    expect(() => config({ sesFromEmail: 'no-reply@example.com', sesRegion: 'Ireland' })).toThrow(
      /sesRegion is not an AWS region/,
    )
  })
})

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['prod', prod],
    ['ephemeral dev with SES', dev],
  ])('%s: no unacknowledged finding', (_, { nag }) => {
    // checkAwsSolutions ran on the stack as bin/app.ts runs it (test/support/synth.ts).
    expect(nag).toEqual([])
  })
})
