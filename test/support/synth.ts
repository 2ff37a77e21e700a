import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { App, type CfnResource as CdkCfnResource, Stack } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { GrantServiceStack } from '../../lib/grant-service-stack'
import { checkAwsSolutions } from '../../lib/nag'
import { stackName, stageConfig } from '../../lib/stage-config'
import { makeConsoleDist } from './console-dist'
import { PROJECT_ROOT } from './project-root'
import { cached } from './synth-cache'

export { PROJECT_ROOT }

/** The fixture console template tests deploy (`npx cdk synth` deploys console/dist), made once. */
let fixtureDist: string | undefined
export const consoleDistFixture = () => {
  fixtureDist ??= makeConsoleDist()
  return fixtureDist
}

type SynthOptions = { bundle?: boolean; stageAssets?: boolean; consoleDistDir?: string }

/** A message the synth left on a construct (`Annotations.of(...)`), as `cdk synth` prints it. */
export type SynthMessage = { level: 'info' | 'warning' | 'error'; path: string; text: string }

/** What one synth yields, as plain data: the same for every test file of the run that asks. */
type Synthesized = {
  stackName: string
  json: CfnTemplate
  /** The nested alarms stack's template as CDK wrote it, and its resource in the parent. */
  alarmsRaw: CfnTemplate
  alarmsHolder: string
  /** The nested stack of the management routes' functions (lib/route-functions.ts), likewise. */
  manageRaw: CfnTemplate
  manageHolder: string
  messages: SynthMessage[]
  /** cdk-nag's AwsSolutions findings that no acknowledgement covers, as bin/app.ts checks them. */
  nag: string[]
  /** What the stack's constructs hand other code, resolved in the stack. */
  exposed: {
    userPoolId: unknown
    userPoolClientId: unknown
    issuerUrl: unknown
    consoleGrantApiUrl: unknown
  }
  /** The cloud assembly: staged assets (with `stageAssets`) and bundles (with `bundle`) are here. */
  outdir: string
}

/** Synthesizes in this process, into `outdir`, as bin/app.ts does (cdk-nag included). */
const synthesize = (
  context: Record<string, string>,
  { bundle, stageAssets, consoleDistDir }: SynthOptions,
  outdir: string,
): Synthesized => {
  const app = new App({
    outdir,
    // CDK's built-in CloudFormation validation (a WebAssembly linter: about 80% of a synth without
    // bundling) reads the templates and changes nothing in them; without the
    // `@aws-cdk/core:validateAgainstDefaultRules` flag its findings are warnings that cannot fail
    // a synth, and no test reads them. CI's `cdk synth` runs it on the deployed template.
    builtinCloudFormationValidation: false,
    // The CDK CLI sets this; SAM finds each function's bundle through the metadata it adds.
    context: {
      'aws:cdk:enable-asset-metadata': true,
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      // Unless a test reads the staged files, assets are referenced where they are instead of
      // copied into the assembly (CDK's own 22 MB AWS CLI layer included).
      ...(stageAssets ? {} : { 'aws:cdk:disable-asset-staging': true }),
      ...context,
    },
  })
  const config = stageConfig((key) => app.node.tryGetContext(key))
  const stack = new GrantServiceStack(app, stackName(config.stage), {
    ...config,
    projectRoot: PROJECT_ROOT,
    consoleDistDir: consoleDistDir ?? consoleDistFixture(),
  })
  const report = checkAwsSolutions(stack)
  const assembly = app.synth()
  const artifact = assembly.getStackArtifact(stack.artifactId)
  const json = artifact.template as CfnTemplate
  const alarmsRaw = JSON.parse(
    readFileSync(join(assembly.directory, stack.alarms.templateFile), 'utf8'),
  ) as CfnTemplate
  const manageRaw = JSON.parse(
    readFileSync(join(assembly.directory, stack.manageFunctions.templateFile), 'utf8'),
  ) as CfnTemplate
  // What Template.fromStack checks on the way (a dependency cycle among resources throws).
  Template.fromJSON(json)
  Template.fromJSON(alarmsRaw)
  Template.fromJSON(manageRaw)
  return {
    stackName: stack.stackName,
    json,
    alarmsRaw,
    alarmsHolder: stack.resolve((stack.alarms.nestedStackResource as CdkCfnResource).logicalId),
    manageRaw,
    manageHolder: stack.resolve(
      (stack.manageFunctions.nestedStackResource as CdkCfnResource).logicalId,
    ),
    messages: artifact.messages.map((m) => ({
      level: m.level,
      path: m.id,
      text: String(m.entry.data),
    })),
    nag: report.violations.map(
      (v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath)}`,
    ),
    exposed: stack.resolve({
      userPoolId: stack.identity.userPool.userPoolId,
      userPoolClientId: stack.identity.userPoolClient.userPoolClientId,
      issuerUrl: stack.identity.issuerUrl,
      consoleGrantApiUrl: stack.console.config.grantApiUrl,
    }),
    outdir: assembly.directory,
  }
}

/** This test file's synths, so two calls with one context share one parse too. */
const inFile = new Map<string, ReturnType<typeof present>>()

/**
 * The contexts several template tests synthesize: named once, so each file asks for the very same
 * context and the run's synth cache makes each template once for all of them.
 */
export const CONTEXTS = {
  /** `cdk deploy -c stage=dev -c ephemeral=true ...`: an ephemeral stage with its own options. */
  dev: {
    stage: 'dev',
    ephemeral: 'true',
    throttleRate: '25',
    throttleBurst: '50',
    alarmEmail: 'ops@example.com',
    logLevel: 'debug',
  },
  /** The first deploy of an upgrade, for a stage an earlier release deployed with the old indexes. */
  legacy: { keepLegacyIndexes: 'true' },
  /** A stage with an SES identity. */
  mailing: { stage: 'mailing', sesFromEmail: 'offers@mail.example.com' },
  /** A stage with every option on (its grant route's throttle too). */
  everyOption: {
    stage: 'full',
    alarmEmail: 'ops@example.com',
    sesFromEmail: 'offers@example.com',
    consoleDomainName: 'console.example.com',
    consoleCertificateArn:
      'arn:aws:acm:us-east-1:123456789012:certificate/0f6c1d2e-3f4a-4b5c-8d9e-0a1b2c3d4e5f',
    keepLegacyIndexes: 'true',
    grantThrottleRate: '300',
    grantThrottleBurst: '600',
  },
} as const satisfies Record<string, Record<string, string>>

/**
 * Synthesizes the stack as bin/app.ts does, from CDK context (`-c key=value`), once per distinct
 * context and options for the whole test run (test/support/synth-cache.ts): every test file that
 * asks for the same context reads the same synthesized template. With `bundle`, bundling runs
 * the real esbuild for every function (what test/infra/bundle.test.ts runs); without it, the
 * template is the same but no function is bundled (`aws:cdk:bundling-stacks` empty, as
 * `cdk synth --exclusively` does for other stacks), which keeps template-only tests from bundling
 * some sixty functions per synth. With `stageAssets` (implied by `bundle`), file assets are
 * copied into the assembly (`outdir`), where a test can read them. The console it deploys is a
 * fixture build (test/support/console-dist.ts) unless `consoleDistDir` names another.
 */
export const synth = (
  context: Record<string, string> = {},
  { bundle = false, stageAssets = bundle, consoleDistDir }: SynthOptions = {},
) => {
  const options = { bundle, stageAssets, consoleDistDir }
  // Each file makes its own fixture console, with the same files: one key for all of them.
  const key = JSON.stringify([Object.entries(context).sort(), bundle, stageAssets, consoleDistDir])
  const known = inFile.get(key)
  if (known) return known
  const made = present(cached(key, (outdir) => synthesize(context, options, outdir)))
  inFile.set(key, made)
  return made
}

/** A synth as tests read it: the templates, and what used to need the live stack. */
const present = (s: Synthesized) => {
  let alarmsTemplate: Template | undefined
  let named: Stack | undefined
  const json = withNestedInline(s.json, s.manageRaw, s.manageHolder)
  return {
    ...s,
    /**
     * The service's stack as one template: the parent's resources and the management functions'
     * nested stack's (lib/route-functions.ts) side by side, each reference across the two written
     * as it would be within one stack (`{ Ref: 'ManageListGrantsFunction' }`), so a test finds a
     * function, its role and what names it wherever the function lives. `parent` is the parent's
     * template as CDK wrote it.
     */
    json,
    parent: s.json,
    alarms: withParameters(json, s.alarmsRaw, s.alarmsHolder),
    /** The nested alarms stack's template for `aws-cdk-lib/assertions`, its parameters as CDK made them. */
    get alarmsTemplate() {
      alarmsTemplate ??= Template.fromJSON(s.alarmsRaw)
      return alarmsTemplate
    },
    /**
     * A bare stack of the same name (and, as every stage is, no fixed account or region), to
     * resolve what lib/ derives from a stack's name and the pseudo-parameters.
     */
    get named() {
      named ??= new Stack(new App(), s.stackName)
      return named
    },
    warnings: s.messages.filter((m) => m.level === 'warning'),
  }
}

/**
 * A nested stack's template with each parameter's `Ref` replaced by the value the parent passes
 * it: an alarm's dimension then reads `{ Ref: 'GrantTokensFunction' }`, the parent's own logical
 * id, as tests of the parent's resources write it.
 */
const withParameters = (parentJson: CfnTemplate, raw: CfnTemplate, holderId: string) => {
  const holder = parentJson.Resources[holderId] as CfnResource
  const passed = (holder.Properties.Parameters ?? {}) as Record<string, unknown>
  return { ...raw, Resources: substituteRefs(raw.Resources, passed) } as CfnTemplate
}

/** `value` with each `{ Ref: <parameter> }` replaced by the value `passed` gives it. */
const substituteRefs = (value: unknown, passed: Record<string, unknown>): unknown => {
  if (Array.isArray(value)) return value.map((v) => substituteRefs(v, passed))
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value)
  const [only] = entries
  if (entries.length === 1 && only?.[0] === 'Ref' && Object.hasOwn(passed, String(only[1]))) {
    return passed[String(only[1])]
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, substituteRefs(v, passed)]))
}

/**
 * The parent with a nested stack's resources in place of the resource that holds it: the nested
 * resources read the parent's values for their parameters, and the parent's
 * `Fn::GetAtt: [holder, 'Outputs.<name>']` read the nested output's value.
 */
const withNestedInline = (parent: CfnTemplate, nested: CfnTemplate, holderId: string) => {
  const holder = parent.Resources[holderId] as CfnResource
  const passed = (holder.Properties.Parameters ?? {}) as Record<string, unknown>
  // The CDK CLI's version report, when asked for, is in each template: the parent's stands.
  const { CDKMetadata: _report, ...deployed } = nested.Resources
  const nestedResources = substituteRefs(deployed, passed) as CfnTemplate['Resources']
  const outputs = substituteRefs(nested.Outputs ?? {}, passed) as CfnTemplate['Outputs']
  const readOutputs = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(readOutputs)
    if (value === null || typeof value !== 'object') return value
    const getAtt = (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']
    if (getAtt?.[0] === holderId && getAtt[1].startsWith('Outputs.')) {
      return outputs[getAtt[1].slice('Outputs.'.length)]?.Value
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, readOutputs(v)]))
  }
  const { [holderId]: _holder, ...own } = parent.Resources
  for (const id of Object.keys(nestedResources)) {
    if (Object.hasOwn(own, id)) throw new Error(`${id} is in both the parent and ${holderId}`)
  }
  return {
    ...parent,
    Resources: { ...(readOutputs(own) as CfnTemplate['Resources']), ...nestedResources },
    Outputs: readOutputs(parent.Outputs) as CfnTemplate['Outputs'],
  } as CfnTemplate
}

export type CfnResource = {
  Type: string
  Properties: Record<string, unknown>
  Metadata?: Record<string, unknown>
  DeletionPolicy?: string
  UpdateReplacePolicy?: string
}
export type CfnTemplate = {
  Resources: Record<string, CfnResource>
  Outputs: Record<string, { Value: unknown }>
  Parameters?: Record<string, { Type: string; Description?: string }>
}

export const resourcesOfType = (template: CfnTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, r]) => r.Type === type)

export const resource = (template: CfnTemplate, logicalId: string): CfnResource => {
  const found = template.Resources[logicalId]
  if (!found) throw new Error(`no resource ${logicalId} in the template`)
  return found
}

/**
 * Every identity policy of the template's roles, in the shape of an AWS::IAM::Policy resource
 * (`Roles`, `PolicyDocument`): the separate policy resources, and each role's inline `Policies`
 * (lib/inline-policy-role.ts writes a function's statements there), keyed `<role id>.<name>`.
 */
export const rolePolicies = (template: CfnTemplate): [string, CfnResource][] => [
  ...resourcesOfType(template, 'AWS::IAM::Policy'),
  ...resourcesOfType(template, 'AWS::IAM::Role').flatMap(([roleId, role]) =>
    ((role.Properties.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[]).map(
      (p): [string, CfnResource] => [
        `${roleId}.${p.PolicyName}`,
        {
          Type: 'AWS::IAM::Policy',
          Properties: { Roles: [{ Ref: roleId }], PolicyDocument: p.PolicyDocument },
        },
      ],
    ),
  ),
]

/** Every (action, resource) pair a role's policies allow, resources as the template writes them. */
export const grantsOfRole = (t: CfnTemplate, roleId: string) =>
  rolePolicies(t)
    .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) =>
      (
        p.Properties.PolicyDocument as { Statement: { Action: unknown; Resource: unknown }[] }
      ).Statement.flatMap((s) =>
        [s.Action]
          .flat()
          .flatMap((action) =>
            [s.Resource].flat().map((r) => ({ action: String(action), resource: r })),
          ),
      ),
    )
