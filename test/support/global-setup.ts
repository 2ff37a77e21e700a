import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Config } from '@jest/types'
import { createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { tableNames } from '../../functions/table-schema'
import { ensureAppClient, ensureUserPool, startCognitoLocal } from '../../local/cognito-local'
import { startDynamoDbLocal } from '../../local/dynamodb-local'
import { functionEnvironment } from '../../local/local-env'
import { ensureTables } from '../../local/tables'
import { type BrowserRun, selectsBrowserSuites, startBrowserRun } from './browser-run'
import { TEST_CONSOLE_URL, TEST_IDENTITY_ENV, type TestIdentity } from './identity'
import { SYNTH_CACHE_ENV } from './synth-cache'

/**
 * Starts one in-memory DynamoDB Local for the run, on a free port, with table names of its own,
 * so a test run never touches (or collides with) a developer's `npm start`; and one Cognito
 * emulator, its data in a temporary directory, with the stack's pool and client, a second client
 * and a second pool (for tokens of another client and another pool). When the run has browser
 * suites, also what they share: the console built once, one Chromium, one npm start
 * (test/support/browser-run.ts).
 */
export default async function globalSetup(
  globalConfig: Config.GlobalConfig,
  projectConfig: Config.ProjectConfig,
) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'
  const started = await Promise.allSettled([
    startDynamoDbLocal({ root: resolve(__dirname, '../..') }),
    startCognitoLocal({
      root: resolve(__dirname, '../..'),
      env: process.env,
      consoleUrl: TEST_CONSOLE_URL,
    }),
    selectsBrowserSuites(globalConfig, projectConfig) ? startBrowserRun() : undefined,
  ])
  const dynamo = started[0].status === 'fulfilled' ? started[0].value : undefined
  const cognito = started[1].status === 'fulfilled' ? started[1].value : undefined
  const browsers = started[2].status === 'fulfilled' ? started[2].value : undefined
  const stopAll = () => Promise.all([dynamo?.stop(), cognito?.stop(), browsers?.stop()])
  if (dynamo?.exposed) console.error(dynamo.exposed)
  const failed = started.find((s) => s.status === 'rejected')
  if (!dynamo || !cognito) {
    await stopAll()
    throw (failed as PromiseRejectedResult).reason
  }
  if (started[2].status === 'rejected') {
    await stopAll()
    throw started[2].reason
  }
  const running = globalThis as {
    __dynamo?: typeof dynamo
    __cognito?: typeof cognito
    __browsers?: BrowserRun
  }
  running.__dynamo = dynamo
  running.__cognito = cognito
  running.__browsers = browsers
  const suffix = `test-${process.pid}`
  const tables = tableNames('vs', `-${suffix}`)
  let testIdentity: TestIdentity
  try {
    const main = await ensureUserPool(cognito.endpoint)
    testIdentity = {
      ...main,
      mailFile: cognito.mailFile,
      consoleUrl: TEST_CONSOLE_URL,
      otherClientId: await ensureAppClient(cognito.endpoint, main.userPoolId, 'other-client'),
      otherPool: await ensureUserPool(cognito.endpoint, { pool: 'other-pool' }),
    }
  } catch (error) {
    await stopAll()
    throw error
  }
  // Workers are forked after this, so they inherit it: test/support/runtime.ts builds each test
  // file's configuration from it.
  Object.assign(process.env, functionEnvironment(dynamo.endpoint, tables), {
    POWERTOOLS_SERVICE_NAME: 'virtual-share-grants-test',
    // For test/local/test-processes.test.ts: what this run started, to check it is stopped.
    VS_TEST_RUN_PIDS: JSON.stringify({
      'DynamoDB Local': dynamo.pid,
      emulator: cognito.pid,
      ...browsers?.pids,
    }),
    [TEST_IDENTITY_ENV]: JSON.stringify(testIdentity),
    // Each CDK context synthesized once for the run, whichever file asks (test/support/synth.ts).
    [SYNTH_CACHE_ENV]: mkdtempSync(join(tmpdir(), 'vs-synth-')),
  })
  const dynamodb = createDynamoDbClient({ endpoint: dynamo.endpoint, region: 'local' })
  await ensureTables(dynamodb, tables)
  dynamodb.destroy()
}
