/**
 * CDK app: `npx cdk synth`, `npx cdk deploy -c stage=dev -c ephemeral=true`.
 * Each stage is its own stack (VirtualShares-<stage>), so stages live side by side.
 */
import { fileURLToPath } from 'node:url'
import { App } from 'aws-cdk-lib'
import { GrantServiceStack } from '../lib/grant-service-stack'
import { checkAwsSolutions } from '../lib/nag'
import { stackName, stageConfig } from '../lib/stage-config'

const app = new App()
const config = stageConfig((key) => app.node.tryGetContext(key))
const stack = new GrantServiceStack(app, stackName(config.stage), {
  ...config,
  projectRoot: fileURLToPath(new URL('..', import.meta.url)),
  description: `Virtual-share grant service, stage ${config.stage}`,
  tags: { service: 'virtual-share-grants', stage: config.stage },
})
checkAwsSolutions(stack)
