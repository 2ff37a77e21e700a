/**
 * The Cognito emulator's own process, started by local/cognito-local.ts (`node --import tsx` this
 * file), never imported. It assembles cognito-local 5.3.0's server itself instead of calling its
 * `createDefaultServer`, which would read PORT and HOST (npm start's names) and write `.cognito/` in
 * the working directory:
 *
 * - every path is absolute, under the data directory it is given (`db/` for the pools, `mail.jsonl`
 *   for the mail sink), and it runs with that directory as its working directory;
 * - it listens on 127.0.0.1, on a port the system picks at `listen` (no window for another process
 *   to take it), and signs tokens with `iss` = `http://127.0.0.1:<that port>/<pool id>`;
 * - every message the pool sends goes to the mail sink, rendered by the same code as the
 *   CustomMessage trigger in AWS (functions/identity/invitation-message.ts), with the code or
 *   temporary password filled in; the parent is told over IPC, to print it;
 * - a few of the emulator's gaps on the paths we use are closed in local/cognito-local-patches.ts;
 *   the others are listed in the README.
 *
 * It exits when its parent goes (IPC disconnect), so it never outlives `npm start` or a test run,
 * even one killed with SIGKILL.
 */
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Router } from 'cognito-local/lib/server/Router'
import { createServer } from 'cognito-local/lib/server/server'
import type { Services } from 'cognito-local/lib/services'
import { DateClock } from 'cognito-local/lib/services/clock'
import { CognitoServiceFactoryImpl } from 'cognito-local/lib/services/cognitoService'
import type { Context } from 'cognito-local/lib/services/context'
import { StormDBDataStoreFactory } from 'cognito-local/lib/services/dataStore/stormDb'
import type { Messages } from 'cognito-local/lib/services/messages'
import { otp } from 'cognito-local/lib/services/otp'
import { JwtTokenGenerator } from 'cognito-local/lib/services/tokenGenerator'
import type { Triggers } from 'cognito-local/lib/services/triggers'
import {
  attributeValue,
  UserPoolServiceFactoryImpl,
} from 'cognito-local/lib/services/userPoolService'
import type { Logger } from 'pino'
import { issuerNamesOf, renderMessage } from '../functions/identity/invitation-message'
import { HOST_CONFIG_ENV, type HostConfig, type HostMessage } from './cognito-local'
import { guardEmulator } from './cognito-local-guard'
import { makePatches, type Route } from './cognito-local-patches'
import { appendMail, type Mail } from './mail-sink'

const tell = (message: HostMessage) => {
  if (process.connected) process.send?.(message)
}

const main = async (config: HostConfig) => {
  const dbDir = join(config.dataDir, 'db')

  // cognito-local's own pino (a dependency of its, not ours), quiet: errors only, on stderr, which
  // the parent keeps for start-up failures.
  const pino = createRequire(createRequire(import.meta.url).resolve('cognito-local'))(
    'pino',
  ) as typeof import('pino')
  const logger: Logger = pino.default({ level: 'error' }, pino.default.destination(2))
  const ctx: Context = { logger }

  const clock = new DateClock()
  const stores = new StormDBDataStoreFactory(dbDir)
  const cognito = await new CognitoServiceFactoryImpl(
    dbDir,
    stores,
    new UserPoolServiceFactoryImpl(clock, stores),
  ).create(ctx, { UsernameAttributes: ['email'] })

  // No Lambda triggers: the one the stack has (CustomMessage) only writes text, which `messages`
  // below writes with the same renderer.
  const noTrigger = async () => {
    throw new Error('The local user pool has no Lambda triggers')
  }
  const triggers = {
    enabled: () => false,
    customMessage: noTrigger,
    customEmailSender: noTrigger,
    postAuthentication: noTrigger,
    postConfirmation: noTrigger,
    preSignUp: noTrigger,
    preTokenGeneration: noTrigger,
    userMigration: noTrigger,
  } as unknown as Triggers

  const messages: Messages = {
    async deliver(_ctx, source, _clientId, _userPoolId, user, code, clientMetadata, delivery) {
      const rendered = renderMessage({
        triggerSource: `CustomMessage_${source}`,
        consoleUrl: config.consoleUrl,
        usernameParameter: '{username}',
        codeParameter: '{####}',
        email: attributeValue('email', user.Attributes),
        issuerNames: issuerNamesOf(clientMetadata),
      })
      // Cognito fills the placeholders after the trigger; so does this.
      const fill = (text: string) =>
        text.replaceAll('{username}', user.Username).replaceAll('{####}', code)
      const mail: Mail = {
        to: delivery.Destination,
        // Messages the trigger leaves to Cognito (none on our paths): their gist, not Cognito's text.
        subject: rendered ? fill(rendered.subject) : `Your verification code (${source})`,
        text: rendered ? fill(rendered.text) : `Your verification code is ${code}\n`,
        sentAt: clock.get().toISOString(),
      }
      appendMail(config.mailFile, mail)
      tell({ type: 'mail', mail })
    },
  }

  // The issuer is known once the port is: tokens are only made after that.
  const tokenConfig = { IssuerDomain: 'http://127.0.0.1' }
  const services: Services = {
    clock,
    cognito,
    config: {
      LambdaClient: {},
      TriggerFunctions: {},
      UserPoolDefaults: { UsernameAttributes: ['email'] },
      ServerConfig: { hostname: '127.0.0.1', port: 0, https: false },
      TokenConfig: tokenConfig,
    },
    messages,
    otp,
    tokenGenerator: new JwtTokenGenerator(clock, triggers, tokenConfig),
    triggers,
  }

  const PATCHES = makePatches({ cognito, clock, messages, tokenConfig })

  const routes = Router(services)
  const router = (target: string) => {
    const original = routes(target) as Route
    const patch = PATCHES[target]
    return patch ? (c: Context, req: Record<string, unknown>) => patch(c, req, original) : original
  }

  const server = await createServer(
    router,
    logger,
    { hostname: '127.0.0.1', port: 0, https: false },
    services,
  ).start()
  const { port } = server.address() as AddressInfo
  tokenConfig.IssuerDomain = `http://127.0.0.1:${port}`
  // Loopback Host names only, and CORS for the console's origin only (not cognito-local's `*`).
  guardEmulator(server, config.corsOrigins)

  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    server.closeAllConnections?.()
    server.close()
    if (config.removeOnExit) rmSync(config.dataDir, { recursive: true, force: true })
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  // The parent is gone (ended, crashed or killed): so is the emulator.
  process.on('disconnect', stop)
  if (!process.connected) stop()
  tell({ type: 'ready', port })
}

// This module runs as its own process (local/cognito-local.ts starts it): this is its entry point,
// and its settings come in its environment, read here only.
main(JSON.parse(process.env[HOST_CONFIG_ENV] ?? '') as HostConfig).catch((error: unknown) => {
  console.error(
    `cognito-local could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  )
  process.exit(1)
})
