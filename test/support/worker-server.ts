import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import type { LOCAL_TABLES } from '../../local/local-env'
import { type Seed, seed } from '../../local/seed'
import { BROWSER_RUN_ENV } from './browser-run'
import { makeConsoleDist } from './console-dist'
import { launchNpmStart, type Started, untilReady } from './npm-start'
import { isAlive } from './process'
import { selfSignedCert } from './self-signed-cert'

/**
 * One `npm start -- --in-memory` per jest worker, for the files that cannot share the run's
 * server because they move its clock (POST /_local/clock, forward only, every issuer's) or hold
 * its queues. The first such file in a worker starts it; the next ones in that worker take it
 * over, each with an issuer of its own. A worker runs one file at a time, so a file has the server
 * to itself while it runs. Its clock stays where earlier files moved it: a file that needs real
 * time (`unmovedClock`) gets a new server when the clock has moved. Global set-up names the folder
 * where each server's pid is written; global teardown stops them (and a worker that dies takes its
 * server with it: VS_STOP_WITH_PID). Without that folder (another jest config), the file starts a
 * server of its own, stopped after its tests.
 */
export const WORKER_SERVERS_ENV = 'VS_TEST_WORKER_SERVERS'

/** A server as a test file drives it: its folder, address, DynamoDB Local, and the file's issuer. */
export type WorkerServer = {
  dir: string
  baseUrl: string
  endpoint: string
  tables: typeof LOCAL_TABLES
  seed: Seed
  /** A certificate for `localhost` the server trusts (NODE_EXTRA_CA_CERTS), for https receivers. */
  trusted?: Pem
}

type Pem = { key: string; cert: string }
type Running = { started: Started; dir: string; trusted?: Pem }
type Slot = { consoleDir: string; running: Promise<Running> }

/**
 * The worker's slot lives on a core module, which jest hands every test file of a worker as the
 * same object (each file's own modules and globals are fresh, so a module variable would not do).
 */
const holder = require('node:child_process') as {
  __vsWorkerServer?: Slot
  __vsWorkerConsole?: string
}

const recordsOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8')) as {
    baseUrl: string
    endpoint: string
    tables: typeof LOCAL_TABLES
  }

/** An issuer of the caller's own on a running server, made as npm start seeds one (local/seed.ts). */
export const issuerOn = async (dir: string): Promise<Omit<WorkerServer, 'dir'>> => {
  const running = recordsOf(dir)
  const client = createDocumentClient(
    createDynamoDbClient({ endpoint: running.endpoint, region: 'local' }),
  )
  try {
    const issuer = await seed(client, running.tables, running.baseUrl)
    return { ...running, seed: issuer }
  } finally {
    client.destroy()
  }
}

/**
 * A throw-away certificate for `localhost` (test/support/self-signed-cert.ts), written where the
 * server reads it; none where openssl is missing, unless the caller needs one.
 */
const trustedCert = (dir: string, needed: boolean): Pem | undefined => {
  try {
    const pem = selfSignedCert({ dns: ['localhost'] })
    writeFileSync(join(dir, 'trusted-cert.pem'), pem.cert)
    return pem
  } catch (error) {
    if (needed) throw error
    return undefined
  }
}

/** `npm start -- --in-memory` in a new folder, serving `consoleDir`, once its banner is out. */
const launch = async (consoleDir: string, keep: boolean, needsCert: boolean): Promise<Running> => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-worker-server-'))
  const trusted = trustedCert(dir, needsCert)
  const env: Record<string, string> = { VS_CONSOLE_DIR: consoleDir }
  if (trusted) env.NODE_EXTRA_CA_CERTS = join(dir, 'trusted-cert.pem')
  const started = launchNpmStart(dir, ['--in-memory'], env, { keep })
  const registry = process.env[WORKER_SERVERS_ENV]
  // Written before it is up: a set-up that gives up while it starts still leaves it to teardown.
  if (keep && registry && started.child.pid)
    writeFileSync(
      join(registry, `${started.child.pid}.json`),
      JSON.stringify({ pid: started.child.pid, dir }),
    )
  await untilReady(started)
  return { started, dir, ...(trusted ? { trusted } : {}) }
}

const clockMoved = async (baseUrl: string) => {
  const response = await fetch(`${baseUrl}/_local/clock`)
  if (response.status !== 200) throw new Error(`GET /_local/clock: ${response.status}`)
  return ((await response.json()) as { offsetMs: number }).offsetMs !== 0
}

/**
 * The worker's server serving `consoleDir` (a console build: the run's, else a stand-in), with
 * an issuer of the caller's own; a new one when there is none yet, it has stopped, it serves
 * another console, `unmovedClock` is asked and its clock has moved, or `trusted` is asked (a
 * certificate it trusts) and it has none.
 */
export const workerServer = async ({
  consoleDir,
  unmovedClock = false,
  trusted = false,
}: {
  consoleDir?: string
  unmovedClock?: boolean
  trusted?: boolean
} = {}): Promise<WorkerServer> => {
  const pooled = process.env[WORKER_SERVERS_ENV] !== undefined
  // The run's console build when it has one, so every file of the worker can use the same server.
  const dist = consoleDir ?? process.env[BROWSER_RUN_ENV.consoleDir] ?? standInConsole()
  let slot = pooled ? holder.__vsWorkerServer : undefined
  const current = slot && (await slot.running.catch(() => undefined))
  const usable =
    slot?.consoleDir === dist &&
    current !== undefined &&
    current.started.child.exitCode === null &&
    current.started.child.signalCode === null &&
    !(trusted && current.trusted === undefined) &&
    !(unmovedClock && (await clockMoved(recordsOf(current.dir).baseUrl)))
  if (!usable) {
    if (current) await stopSlot(current)
    slot = { consoleDir: dist, running: launch(dist, pooled, trusted) }
    if (pooled) holder.__vsWorkerServer = slot
  }
  const { dir, trusted: pem } = await (slot as Slot).running
  return { dir, ...(await issuerOn(dir)), ...(pem ? { trusted: pem } : {}) }
}

/** Stops a worker server this worker replaces, and forgets it. */
const stopSlot = async ({ started, dir }: { started: Started; dir: string }) => {
  const pid = started.child.pid
  await started.stop()
  const registry = process.env[WORKER_SERVERS_ENV]
  if (registry && pid) rmSync(join(registry, `${pid}.json`), { force: true })
  rmSync(dir, { recursive: true, force: true })
}

/** A console stand-in for servers whose tests need no console: one per worker. */
const standInConsole = () => {
  const existing = holder.__vsWorkerConsole
  if (existing !== undefined && existsSync(existing)) return existing
  const registry = process.env[WORKER_SERVERS_ENV]
  // Inside the run's folder, which teardown removes; otherwise a temporary folder.
  holder.__vsWorkerConsole = makeConsoleDist(
    registry ? mkdtempSync(join(registry, 'console-')) : undefined,
  )
  return holder.__vsWorkerConsole
}

/**
 * The process is still the server that was recorded (where /proc tells): a pid the system has
 * since handed to another process is left alone.
 */
const stillOurs = (pid: number, dir: string) => {
  if (!existsSync('/proc/self/environ')) return true
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`VS_LOCAL_DIR=${dir}\0`)
  } catch {
    return false
  }
}

/** Global teardown: every worker server of the run stopped (Ctrl-C, then SIGKILL), and gone. */
export const stopWorkerServers = async (registry: string, graceMs = 20_000) => {
  if (!existsSync(registry)) return
  const servers = readdirSync(registry)
    .filter((name) => name.endsWith('.json'))
    .map(
      (name) =>
        JSON.parse(readFileSync(join(registry, name), 'utf8')) as { pid: number; dir: string },
    )
  await Promise.all(
    servers.map(async ({ pid, dir }) => {
      if (stillOurs(pid, dir)) await stopPid(pid, graceMs)
      rmSync(dir, { recursive: true, force: true })
    }),
  )
  rmSync(registry, { recursive: true, force: true })
}

const stopPid = async (pid: number, graceMs: number) => {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name)
    } catch {
      // already gone
    }
  }
  signal('SIGINT')
  const deadline = Date.now() + graceMs
  while (isAlive(pid)) {
    if (Date.now() > deadline) signal('SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
