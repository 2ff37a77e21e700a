/**
 * `npm start`: DynamoDB Local + the embedded Cognito emulator + the API's Lambda handlers behind a
 * local HTTP server.
 *   npm start                  data kept in .local/dynamodb and .local/cognito, seeded once
 *   npm start -- --in-memory   nothing kept, seeded afresh on every start
 * PORT (default 3000) and HOST (default 127.0.0.1) choose where the API listens; DYNAMODB_PORT
 * pins DynamoDB Local's port (otherwise any free one) for `sam local`; CONSOLE_URL is the address
 * invitation e-mails link to (default: the console this server serves at /app/); VS_CONSOLE_DIR
 * serves another build of the console than console/dist.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:net'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb'
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { buildRuntime } from '../functions/composition'
import { loadConfig } from '../functions/config'
import { hashApiKey } from '../functions/domain/api-key'
import { IDENTITY_ENV, parseConsoleUrl } from '../functions/identity/identity-settings'
import { LocalUploadStore } from '../functions/stores/uploads.local'
import { CONSOLE_PATH } from '../lib/console-site'
import {
  ensureUserPool,
  HOST_SCRIPT,
  jwksUri,
  type LocalIdentity,
  type RunningCognito,
  startCognitoLocal,
} from '../local/cognito-local'
import { LOCAL_CONSUMERS } from '../local/consumer-factories'
import { consoleBuilt, type LocalConsoleOptions } from '../local/dev-pages/console-site'
import {
  assertJava,
  LocalSetupError,
  type RunningDynamoDb,
  startDynamoDbLocal,
} from '../local/dynamodb-local'
import { buildRouteHandlers, createLocalApi, type LocalApiOptions } from '../local/http-server'
import {
  functionEnvironment,
  identityEnvironment,
  LOCAL_TABLES,
  localPaths,
} from '../local/local-env'
import { localMailEnvironment } from '../local/mail-env'
import { formatMailForTerminal } from '../local/mail-sink'
import { OffsetClock } from '../local/offset-clock'
import { isAlive, stopOrphan } from '../local/orphan-processes'
import { type LocalPipeline, startLocalPipeline } from '../local/pipeline'
import { type Seed, seed } from '../local/seed'
import { startUpDynamoDb } from '../local/start-up-client'
import { ensureTables } from '../local/tables'
import { createUploadReceiver } from '../local/upload-receiver'
import { webhookSecretKey } from '../local/webhook-key'

// The SDK's notice that Node.js 20 support ends in 2027 is in the README; keep tool output clean.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'

const args = process.argv.slice(2)
const unknown = args.filter((arg) => arg !== '--in-memory')
const inMemory = args.includes('--in-memory')
const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
// Pinned only for `sam local`, whose container needs a known address (events/env.json uses 8000).
const dynamoPort =
  process.env.DYNAMODB_PORT === undefined ? undefined : Number(process.env.DYNAMODB_PORT)
const paths = localPaths(process.env.VS_LOCAL_DIR)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DEFAULT_CONSOLE_DIR = resolve(ROOT, 'console/dist')
const consoleDir = process.env.VS_CONSOLE_DIR
  ? resolve(process.env.VS_CONSOLE_DIR)
  : DEFAULT_CONSOLE_DIR
/** The emulator's region, as its tokens and the SDK clients pointed at it have it. */
const LOCAL_REGION = 'local'
/** How often npm start sweeps due offer timers (AWS: every minute). */
const LOCAL_SWEEP_EVERY_MS = 5_000
/** The functions' clock: POST /_local/clock (loopback only) moves it forward. */
const clock = new OffsetClock()

const fail = (message: string): never => {
  console.error(`error: ${message}`)
  process.exit(1)
}

/** Binds the API port before anything slow starts, so a busy port fails in a second. */
const listen = (server: Server) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })

/**
 * `npm install` builds the console (the root package's `prepare`); a checkout where it is missing
 * gets it built here, offline, beside DynamoDB Local and the emulator. Resolves to why it could not
 * be built, or undefined. Until it is built, /app/ says how to build it.
 */
const buildConsole = () =>
  new Promise<string | undefined>((done) => {
    console.log('The console is not built: building it (npm run build -w console)...')
    let output = ''
    const child = spawn('npm', ['run', 'build', '-w', 'console'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (d) => {
      output += d
    })
    child.stderr.on('data', (d) => {
      output += d
    })
    child.once('error', (error) => done(error.message))
    child.once('exit', (code) => {
      if (code === 0 && consoleBuilt(consoleDir)) done(undefined)
      else done(`npm run build -w console failed (exit ${code}):\n${output.trim().slice(-2000)}`)
    })
  })

const reuseSeed = async (client: DynamoDBClient, baseUrl: string): Promise<Seed | undefined> => {
  if (inMemory || !existsSync(paths.seedFile)) return undefined
  const previous = JSON.parse(readFileSync(paths.seedFile, 'utf8')) as Seed
  const { Item } = await client.send(
    new GetItemCommand({
      TableName: LOCAL_TABLES.apiKeys,
      Key: { keyHash: { S: hashApiKey(previous.keys.TEST) } },
    }),
  )
  return Item ? { ...previous, baseUrl } : undefined
}

/** The options and ports checked before anything starts. */
const checkArguments = () => {
  if (unknown.length > 0) fail(`unknown option ${unknown.join(' ')} (only --in-memory is known)`)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`PORT must be 0-65535, got ${process.env.PORT}`)
  if (
    dynamoPort !== undefined &&
    (!Number.isInteger(dynamoPort) || dynamoPort < 1 || dynamoPort > 65535)
  ) {
    fail(`DYNAMODB_PORT must be 1-65535, got ${process.env.DYNAMODB_PORT}`)
  }
}

/** An earlier npm start of this checkout: refused if alive, its orphans stopped if killed. */
const stopEarlierRun = async () => {
  if (existsSync(paths.endpointFile)) {
    const running = JSON.parse(readFileSync(paths.endpointFile, 'utf8')) as {
      serverPid: number
      dynamoPid: number
      cognitoPid?: number
    }
    if (isAlive(running.serverPid)) {
      fail(
        `npm start is already running for this checkout (pid ${running.serverPid}, ${paths.endpointFile}). Stop it with Ctrl-C first.`,
      )
    }
    // The last run was killed without cleaning up: its DynamoDB Local may still hold the data.
    await stopOrphan(running.dynamoPid, 'DynamoDBLocal.jar', 'DynamoDB Local')
    await stopOrphan(running.cognitoPid, HOST_SCRIPT, 'the Cognito emulator')
  }
}

/** CONSOLE_URL, checked: the address invitations link to, if it is not the served console. */
const configuredConsoleUrlOf = () => {
  const configuredConsoleUrl = process.env[IDENTITY_ENV.consoleUrl]
  if (configuredConsoleUrl) {
    try {
      parseConsoleUrl(configuredConsoleUrl)
    } catch (error) {
      fail(`${IDENTITY_ENV.consoleUrl}: ${(error as Error).message}`)
    }
  }
  return configuredConsoleUrl
}

// The upload bucket's stand-in (send to many): presigned POSTs to this server, checked as S3
// checks them, the files kept beside DynamoDB Local's data (a day, as the bucket's rule).
const attachUploads = (
  apiOptions: LocalApiOptions,
  consoleOptions: LocalConsoleOptions,
  baseUrl: string,
  actualPort: number,
) => {
  const uploads = new LocalUploadStore({
    endpoint: () => baseUrl,
    ...(inMemory ? {} : { dir: resolve(paths.dir, 'uploads') }),
  })
  apiOptions.uploads = createUploadReceiver({
    store: uploads,
    // The bucket's CORS rule: the console's origins only (it is served under both names).
    allowedOrigins: () => [
      ...new Set([baseUrl, `http://localhost:${actualPort}`, `http://127.0.0.1:${actualPort}`]),
    ],
  })
  // The console's CSP lets it POST there, as it gains the bucket's endpoint in AWS.
  consoleOptions.uploadOrigin = baseUrl
  return uploads
}

/** What stops the server besides Ctrl-C: a test process gone, or an error that escaped. */
const stopOnExit = (server: Server, shutdown: (code: number) => Promise<void>) => {
  process.once('SIGINT', () => void shutdown(0))
  process.once('SIGTERM', () => void shutdown(0))
  // Tests (test/support/npm-start.ts) name their own process: if it dies without stopping this
  // server (a killed test worker), the server stops instead of running on for hours.
  const watched = Number(process.env.VS_STOP_WITH_PID ?? Number.NaN)
  if (Number.isInteger(watched) && watched > 0) {
    setInterval(() => {
      if (isAlive(watched)) return
      console.error(`error: pid ${watched}, which started this server, is gone: stopping.`)
      void shutdown(1)
    }, 500).unref()
  }
  // The server answers every client without throwing (local/http-server.ts). Should anything
  // still escape, stop DynamoDB Local and clean up on the way out rather than leave it running.
  const crash = (error: unknown) => {
    console.error(
      `error: the local server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    )
    void shutdown(1)
  }
  process.once('uncaughtException', crash)
  process.once('unhandledRejection', crash)
  server.on('error', crash)
}

/**
 * DynamoDB Local and the emulator, both at once; each is handed over as it starts, so that
 * whichever fails first, shutdown stops the other.
 */
const startBackends = async (
  consoleUrl: string,
  servedConsoleUrl: string,
  onDynamo: (running: RunningDynamoDb) => void,
  onCognito: (running: RunningCognito) => void,
) => {
  // No Java, no DynamoDB Local: said at once, before the emulator is started for nothing.
  const javaVersion = assertJava()
  // Both at once; whichever fails first, the other is stopped by shutdown below.
  const starting = await Promise.allSettled([
    startDynamoDbLocal({
      root: ROOT,
      javaVersion,
      ...(inMemory ? {} : { dataDir: paths.data }),
      ...(dynamoPort === undefined ? {} : { port: dynamoPort }),
    }).then((running) => {
      onDynamo(running)
      if (running.exposed) console.error(running.exposed)
    }),
    startCognitoLocal({
      root: ROOT,
      env: process.env,
      ...(inMemory ? {} : { dataDir: paths.cognito }),
      consoleUrl,
      otherConsoleUrls: [servedConsoleUrl],
      onMail: (mail) => console.log(formatMailForTerminal(mail)),
      onLog: (line) => console.error(`cognito-local: ${line}`),
      // As long as DynamoDB Local's (local/dynamodb-local.ts): an overloaded machine is slow.
      startTimeoutMs: 60_000,
    }).then((running) => {
      onCognito(running)
    }),
  ])
  const failed = starting.find((result) => result.status === 'rejected')
  if (failed) throw (failed as PromiseRejectedResult).reason
}

/** The emulator's pool: the authorizer, the mail sink and the console's sign-in pointed at it. */
const useIdentity = async (
  cognito: RunningCognito,
  apiOptions: LocalApiOptions,
  consoleOptions: LocalConsoleOptions,
) => {
  const identity = await ensureUserPool(cognito.endpoint)
  writeFileSync(paths.identityFile, `${JSON.stringify(identity, null, 2)}\n`)
  apiOptions.authorizer = {
    issuer: identity.issuer,
    audience: [identity.clientId],
    jwksUri: jwksUri(identity),
  }
  apiOptions.mailFile = cognito.mailFile
  consoleOptions.identity = {
    region: LOCAL_REGION,
    userPoolId: identity.userPoolId,
    userPoolClientId: identity.clientId,
    cognitoEndpoint: `${identity.endpoint}/`,
  }
  return identity
}

// This server's runtime: the configuration the stack would give the functions, pointed at
// DynamoDB Local, the emulator and the mail sink; one client for every route.
const localRuntime = (
  dynamo: RunningDynamoDb,
  cognito: RunningCognito,
  identity: LocalIdentity,
  consoleUrl: string,
) =>
  buildRuntime(
    loadConfig({
      // Webhook secrets sealed with the key kept in the data folder, so they still open after a
      // restart (in memory, nothing outlives the run: a key for this run).
      ...functionEnvironment(
        dynamo.endpoint,
        LOCAL_TABLES,
        inMemory ? undefined : webhookSecretKey(paths.dir),
      ),
      ...identityEnvironment(identity),
      ...localMailEnvironment({ mailFile: cognito.mailFile, consoleUrl }),
    }),
    // The functions' wall clock: real time plus what POST /_local/clock has moved it by.
    { clock },
  )

// Grants a kept .local/dynamodb holds from before `byProgramSlot` get their slot, so the
// listings (which read that index) show them. Once done, a marker beside the data says so:
// every later grant is written with its slot, so later starts skip the Scan. Data in memory is
// always new.
const backfillGrantSlots = async (documentClient: DynamoDBDocumentClient) => {
  const slotsMarker = resolve(paths.data, 'grant-slots-backfilled')
  if (!inMemory && !existsSync(slotsMarker)) {
    const { DynamoDbAdminStore } = await import('../functions/stores/admin.dynamodb')
    const slotted = await new DynamoDbAdminStore(documentClient, LOCAL_TABLES).backfillGrantSlots()
    if (slotted.updated > 0) {
      console.log(`Gave ${slotted.updated} grants of an earlier version their listing slot.`)
    }
    writeFileSync(slotsMarker, `${new Date().toISOString()}\n`)
  }
}

const main = async () => {
  checkArguments()
  mkdirSync(paths.dir, { recursive: true })
  await stopEarlierRun()
  const configuredConsoleUrl = configuredConsoleUrlOf()

  // The handlers are built once DynamoDB Local and the emulator are up, over their addresses.
  // The authorizer and the mail sink are set then too (the adapter reads them on each request).
  const handlers = new Map()
  // The console's pool is filled in once the emulator is up (config.json answers 503 until then).
  const consoleOptions: LocalConsoleOptions = { dir: consoleDir }
  const apiOptions: LocalApiOptions = {
    onAuthorizerRefusal: ({ routeKey, status, reason }) =>
      console.error(`authorizer: ${status} for ${routeKey}: ${reason}`),
    console: consoleOptions,
  }
  const server = createLocalApi(handlers, apiOptions)
  await listen(server).catch((error: NodeJS.ErrnoException) =>
    fail(
      error.code === 'EADDRINUSE'
        ? `port ${port} on ${host} is already in use. Stop whatever uses it or choose another: PORT=3001 npm start`
        : `cannot listen on ${host}:${port}: ${error.message}`,
    ),
  )
  const address = server.address()
  const actualPort = typeof address === 'object' && address ? address.port : port
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`
  const uploads = attachUploads(apiOptions, consoleOptions, baseUrl, actualPort)

  // Invitations link to the console this server serves (a loopback http address).
  const servedConsoleUrl = `http://localhost:${actualPort}${CONSOLE_PATH}`
  const consoleUrl = configuredConsoleUrl ? parseConsoleUrl(configuredConsoleUrl) : servedConsoleUrl

  let dynamo: RunningDynamoDb | undefined
  let cognito: RunningCognito | undefined
  let pipeline: LocalPipeline | undefined
  const shutdown = async (code: number) => {
    server.close()
    await pipeline?.stop().catch(() => {})
    await Promise.all([dynamo?.stop(), cognito?.stop()])
    rmSync(paths.endpointFile, { force: true })
    rmSync(paths.identityFile, { force: true })
    process.exit(code)
  }
  stopOnExit(server, shutdown)

  // Only the checkout's own console is built here; a VS_CONSOLE_DIR is served as it is.
  const building =
    consoleDir === DEFAULT_CONSOLE_DIR && !consoleBuilt(consoleDir)
      ? buildConsole()
      : Promise.resolve(undefined)

  try {
    await startBackends(
      consoleUrl,
      servedConsoleUrl,
      (running) => {
        dynamo = running
      },
      (running) => {
        cognito = running
      },
    )
    if (!dynamo || !cognito) throw new Error('DynamoDB Local or the Cognito emulator did not start')
    writeFileSync(
      paths.endpointFile,
      `${JSON.stringify({ endpoint: dynamo.endpoint, dynamoPid: dynamo.pid, cognitoPid: cognito.pid, serverPid: process.pid, baseUrl, inMemory, tables: LOCAL_TABLES }, null, 2)}\n`,
    )
    const identity = await useIdentity(cognito, apiOptions, consoleOptions)
    const runtime = localRuntime(dynamo, cognito, identity, consoleUrl)
    // Start-up's own calls wait longer than a request's (local/start-up-client.ts).
    const { dynamodb, documentClient } = startUpDynamoDb(dynamo.endpoint)
    await ensureTables(dynamodb, LOCAL_TABLES)
    await backfillGrantSlots(documentClient)
    let current = await reuseSeed(dynamodb, baseUrl)
    if (!current) current = await seed(documentClient, LOCAL_TABLES, baseUrl)
    writeFileSync(paths.seedFile, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 })

    // What runs after a request (functions/consumers.ts) on local equivalents: the grants table's
    // stream -> GrantStream -> the OfferMail queue -> its consumer, and -> GrantFigures -> the
    // figures; a batch's chunks on the GrantBatchRows queue -> the batch worker, the sweep on its
    // schedule (local/pipeline.ts). Kept data starts at the stream's end: earlier runs handled the rest.
    pipeline = await startLocalPipeline({
      runtime,
      consumers: LOCAL_CONSUMERS,
      startAt: inMemory ? 'TRIM_HORIZON' : 'LATEST',
      schedules: true,
      // The sweep every few seconds rather than every minute: expiry shows soon after a move.
      scheduleEveryMs: LOCAL_SWEEP_EVERY_MS,
      startUpClient: dynamodb,
      // The request log: the routes' entries written every 250 ms (local/request-log-flusher.ts).
      requestLog: {},
    })
    dynamodb.destroy()
    apiOptions.pipeline = pipeline
    const running = pipeline
    apiOptions.clock = { clock, sweep: () => running.runSchedule('OfferSweep') }
    // The routes send to the pipeline's queues (a batch's chunks to GrantBatchRows), as in AWS to SQS.
    for (const [routeKey, handler] of buildRouteHandlers({
      ...runtime,
      queues: running.senders,
      uploads,
    }))
      handlers.set(routeKey, handler)
    const buildFailure = await building
    if (buildFailure) console.error(`error: the console could not be built: ${buildFailure}`)
    const consoleNote = consoleBuilt(consoleDir)
      ? ''
      : ` (not built: run npm run build -w console; ${CONSOLE_PATH} says so meanwhile)`
    printBanner(current, dynamo.endpoint, identity, `${servedConsoleUrl}${consoleNote}`)
  } catch (error) {
    console.error(
      `error: ${error instanceof LocalSetupError ? error.message : `start-up failed: ${(error as Error).message}`}`,
    )
    await shutdown(1)
  }
}

const printBanner = (s: Seed, endpoint: string, identity: LocalIdentity, consoleLine: string) => {
  const body = JSON.stringify({
    recipient: { email: 'ann@example.com' },
    reason: 'Referral bonus',
    amount: 1,
  })
  console.log(`
Virtual-share grant API listening on ${s.baseUrl}
Console: ${consoleLine}
DynamoDB Local on ${endpoint} (${inMemory ? 'in memory' : `data in ${paths.data}`})
Seeded issuer ${s.issuerId}, written to ${paths.seedFile}:
  TEST program ${s.programs.TEST}   key ${s.keys.TEST}
  LIVE program ${s.programs.LIVE}   key ${s.keys.LIVE}
Cognito emulator on ${identity.endpoint} (${inMemory ? 'in memory' : `data in ${paths.cognito}`}), written to ${paths.identityFile}:
  user pool ${identity.userPoolId}   app client ${identity.clientId}
  token issuer ${identity.issuer}
  invitations and other mail: ${s.baseUrl}/_local/mail (and printed here)

Try it:
curl -i -X POST ${s.baseUrl}/programs/${s.programs.TEST}/grant-tokens \\
  -H 'x-api-key: ${s.keys.TEST}' \\
  -H 'Content-Type: application/json' \\
  -H "Idempotency-Key: $(uuidgen 2>/dev/null || date +%s%N)" \\
  -d '${body}'

Ctrl-C stops the API, DynamoDB Local and the Cognito emulator.`)
}

main().catch((error) => fail(error instanceof Error ? error.message : String(error)))
