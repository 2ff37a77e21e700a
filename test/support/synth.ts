import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { App, type CfnResource as CdkCfnResource, type NestedStack, type Stack } from 'aws-cdk-lib'
import { Template } from 'aws-cdk-lib/assertions'
import { GrantServiceStack } from '../../lib/grant-service-stack'
import { stackName, stageConfig } from '../../lib/stage-config'
import { makeConsoleDist } from './console-dist'

export const PROJECT_ROOT = resolve(__dirname, '../..')

/** The fixture console template tests deploy (`npx cdk synth` deploys console/dist), made once. */
let fixtureDist: string | undefined
export const consoleDistFixture = () => {
  fixtureDist ??= makeConsoleDist()
  return fixtureDist
}

/**
 * Synthesizes the stack as bin/app.ts does, from CDK context (`-c key=value`), into a temporary
 * cloud assembly. With `bundle`, bundling runs the real esbuild for every function (what
 * test/infra/bundle.test.ts runs); without it, the template is the same but no function is
 * bundled (`aws:cdk:bundling-stacks` empty, as `cdk synth --exclusively` does for other stacks),
 * which keeps template-only tests from bundling some thirty functions per synth. With
 * `stageAssets` (implied by `bundle`), file assets are copied into the assembly, where a test can
 * read them. The console it deploys is a fixture build (test/support/console-dist.ts) unless
 * `consoleDistDir` names another.
 */
export const synth = (
  context: Record<string, string> = {},
  {
    bundle = false,
    stageAssets = bundle,
    consoleDistDir = consoleDistFixture(),
  }: { bundle?: boolean; stageAssets?: boolean; consoleDistDir?: string } = {},
) => {
  const app = new App({
    outdir: mkdtempSync(join(tmpdir(), 'cdk-out-')),
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
    consoleDistDir,
  })
  const template = Template.fromStack(stack)
  const json = template.toJSON() as CfnTemplate
  const alarms = nestedTemplate(stack, json, stack.alarms)
  return { app, stack, template, json, alarmsTemplate: alarms.template, alarms: alarms.json }
}

/**
 * A nested stack's template (lib/alarms-stack.ts holds every alarm), raw (`template`, its
 * `Parameters` as CDK made them) and with each parameter's `Ref` replaced by the value the parent
 * passes it (`json`): an alarm's dimension then reads `{ Ref: 'GrantTokensFunction' }`, the
 * parent's own logical id, as tests of the parent's resources write it.
 */
export const nestedTemplate = (parent: Stack, parentJson: CfnTemplate, nested: NestedStack) => {
  const template = Template.fromStack(nested)
  const raw = template.toJSON() as CfnTemplate
  const holder = parentJson.Resources[
    parent.resolve((nested.nestedStackResource as CdkCfnResource).logicalId) as string
  ] as CfnResource
  const passed = (holder.Properties.Parameters ?? {}) as Record<string, unknown>
  const substitute = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(substitute)
    if (value === null || typeof value !== 'object') return value
    const entries = Object.entries(value)
    const [only] = entries
    if (entries.length === 1 && only?.[0] === 'Ref' && Object.hasOwn(passed, String(only[1]))) {
      return passed[String(only[1])]
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, substitute(v)]))
  }
  return { template, raw, json: { ...raw, Resources: substitute(raw.Resources) } as CfnTemplate }
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
