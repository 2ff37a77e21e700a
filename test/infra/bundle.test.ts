import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda'
import { CONSUMERS, type ConsumerSpec, QUEUES, type QueueSpec } from '../../functions/consumers'
import { ROUTES, type Route } from '../../functions/routes'
import { BUDGET } from '../../functions/runtime/deadline'
import { ESM_REQUIRE_BANNER } from '../../lib/function-bundling'
import { buildRouteHandlers } from '../../local/http-server'
import { eventValues, sampleEvents } from '../../local/sam-events'
import { newIssuer, programState } from '../support/api'
import { runtime } from '../support/runtime'
import { PROJECT_ROOT, synth } from '../support/synth'

/**
 * The artifact `cdk deploy` uploads, and `sam local invoke` runs, is the esbuild bundle in the
 * cloud assembly. These tests run that very file, in a fresh Node.js process, against DynamoDB
 * Local, with every sample event in events/, and compare it with the handler the local server
 * runs from source.
 */
const { outdir, json } = synth({ stage: 'bundle', ephemeral: 'true' }, { bundle: true })
const bundleOf = (routeId: string) => {
  const path = json.Resources[`${routeId}Function`]?.Metadata?.['aws:asset:path'] as string
  return join(outdir, path, 'index.mjs')
}

const invokeBundle = (
  routeKey: string,
  event: APIGatewayProxyEventV2,
): APIGatewayProxyStructuredResultV2 => {
  const route =
    ROUTES.find((r) => r.routeKey === routeKey) ?? ROUTES.find((r) => r.routeKey === '$default')
  const script = `
    const { handler } = await import(${JSON.stringify(`file://${bundleOf(route?.id ?? '')}`)})
    const context = { awsRequestId: 'bundle-test', functionName: 'bundle', getRemainingTimeInMillis: () => 10000 }
    const result = await handler(JSON.parse(process.argv[1]), context)
    process.stdout.write(JSON.stringify(result))`
  const out = execFileSync(
    process.execPath,
    ['--enable-source-maps', '--input-type=module', '-e', script, JSON.stringify(event)],
    {
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' },
      encoding: 'utf8',
    },
  )
  return JSON.parse(out)
}

/** What each sample event must produce, in this order (get-grant reads what grant made). */
const EXPECTED: Record<string, number> = {
  'grant.json': 201,
  'get-grant.json': 200,
  'grant-bad-body.json': 400,
  'grant-missing-key.json': 401,
  'method-not-allowed.json': 405,
}

/** How far the 503 case moves its clock at a time (ms). */
const HUNG_STEP_MS = 5

/**
 * The 503 case's child: the bundle against a DynamoDB that accepts, reads and never answers (a
 * broken path to DynamoDB), in this child so it counts every connection itself. Lambda's context
 * counts down 10,000 ms on a clock this script moves (node:test's mock timers: the SDK's attempt
 * timeouts and retry delays and the handler's deadline all run on it), a step at a time and only
 * once every connection the bundle opened has delivered its request: the outcome is the same on
 * a fast machine and a slow one. argv: the bundle, the event.
 */
const HUNG_DYNAMODB_RUN = `
  import { once } from 'node:events'
  import { createServer, Socket } from 'node:net'
  import { mock } from 'node:test'
  let connections = 0
  let requests = 0
  let wake = () => {}
  const hung = createServer((socket) => {
    connections++
    socket.once('data', () => { requests++; wake() })
    socket.on('error', () => {})
  })
  hung.listen(0, '127.0.0.1')
  await once(hung, 'listening')
  process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:' + hung.address().port
  let opened = 0
  const connect = Socket.prototype.connect
  Socket.prototype.connect = function (...args) { opened++; return connect.apply(this, args) }
  // Before the import: the bundle's own references to the timers are the mocks too.
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: Date.now() })
  const { handler } = await import('file://' + process.argv[1])
  const start = Date.now()
  const context = { awsRequestId: 'bundle-deadline', functionName: 'bundle',
    getRemainingTimeInMillis: () => Math.max(0, 10000 - (Date.now() - start)) }
  let answer
  handler(JSON.parse(process.argv[2]), context).then((result) => {
    answer = { result, remainingMs: context.getRemainingTimeInMillis() }
  })
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  for (;;) {
    await turn()
    await turn()
    while (requests < opened) await new Promise((resolve) => { wake = resolve })
    if (answer !== undefined || Date.now() - start > 20000) break
    mock.timers.tick(${HUNG_STEP_MS})
  }
  process.stdout.write(JSON.stringify({ ...answer, connections }))
  process.exit(0)`

describe('the deployed bundle', () => {
  it.each(ROUTES.map((r) => r.id))(
    '%s: ESM with the createRequire banner, AWS SDK bundled, source map beside it',
    (id) => {
      const code = readFileSync(bundleOf(id), 'utf8')
      expect(code.startsWith(ESM_REQUIRE_BANNER)).toBe(true)
      // Everything is bundled: the only modules left to import are Node.js built-ins.
      const specifiers = [
        ...code.matchAll(/\bimport\s*[\w*{}\s,$]*?\s*from\s*["']([^"']+)["']/g),
        ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
      ].map((m) => m[1] as string)
      expect(specifiers.filter((s) => !s.startsWith('node:') && s !== 'module')).toEqual([])
      if (id !== 'NotFound') {
        expect(code).toContain('DynamoDB_20120810')
        expect(specifiers).toContain('node:https')
      }
      expect(readdirSync(join(bundleOf(id), '..'))).toContain('index.mjs.map')
    },
  )

  it('answers every sample event in events/ as the source handler does, against DynamoDB Local', async () => {
    const files = readdirSync(join(PROJECT_ROOT, 'events')).filter((f) => f !== 'env.json')
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort())

    const handlers = buildRouteHandlers(runtime)
    const [bundled, source] = await Promise.all([newIssuer(), newIssuer()])
    const run = async (issuer: typeof bundled, viaBundle: boolean) => {
      const events = new Map(
        sampleEvents(join(PROJECT_ROOT, 'events'), eventValues(issuer)).map((e) => [
          e.file,
          e.event,
        ]),
      )
      const results: Record<
        string,
        {
          status: number | undefined
          body: Record<string, unknown>
          headers: Record<string, unknown>
        }
      > = {}
      for (const file of Object.keys(EXPECTED)) {
        const event = events.get(file) as APIGatewayProxyEventV2
        const handler = handlers.get(event.routeKey)
        const result = viaBundle
          ? invokeBundle(event.routeKey, event)
          : await (handler as NonNullable<typeof handler>)(event, { awsRequestId: 'src' } as never)
        results[file] = {
          status: result.statusCode,
          body: JSON.parse(result.body ?? '{}'),
          headers: result.headers ?? {},
        }
      }
      return results
    }
    const fromBundle = await run(bundled, true)
    const fromSource = await run(source, false)
    for (const [file, status] of Object.entries(EXPECTED)) {
      expect({ file, status: fromBundle[file]?.status }).toEqual({ file, status })
      expect({ file, status: fromSource[file]?.status }).toEqual({ file, status })
      const strip = (b: Record<string, unknown>) => ({
        ...b,
        id: undefined,
        programId: undefined,
        createdAt: undefined,
        requestId: undefined,
        // The offer's window from the grant's own time (issue 19), the same in both.
        expiresAt:
          typeof b.expiresAt === 'string' && typeof b.createdAt === 'string'
            ? Date.parse(b.expiresAt) - Date.parse(b.createdAt)
            : b.expiresAt,
      })
      expect(strip(fromBundle[file]?.body ?? {})).toEqual(strip(fromSource[file]?.body ?? {}))
      expect(fromBundle[file]?.headers['content-type']).toBe(
        fromSource[file]?.headers['content-type'],
      )
    }
    // get-grant.json reads the grant that grant.json made, through its Idempotency-Key.
    expect(fromBundle['get-grant.json']?.body.id).toBe(fromBundle['grant.json']?.body.id)
    expect((await programState(bundled.programs.TEST)).grants).toHaveLength(1)

    // The same grant event again is an idempotent replay from the bundle too.
    const again = invokeBundle(
      'POST /programs/{programId}/grant-tokens',
      sampleEvents(join(PROJECT_ROOT, 'events'), eventValues(bundled)).find(
        (e) => e.file === 'grant.json',
      )?.event as APIGatewayProxyEventV2,
    )
    expect(again.statusCode).toBe(201)
    expect(again.headers?.['idempotent-replayed']).toBe('true')
    expect((await programState(bundled.programs.TEST)).grants).toHaveLength(1)
  })

  it('answers an unknown route through the $default function with problem+json', () => {
    const event = sampleEvents(
      join(PROJECT_ROOT, 'events'),
      eventValues({
        issuerId: 'iss_x',
        programs: { TEST: 'prg_x', LIVE: 'prg_y' },
        keys: { TEST: 'k', LIVE: 'k' },
      }),
    )[0]?.event as APIGatewayProxyEventV2
    const result = invokeBundle('$default', { ...event, routeKey: '$default', rawPath: '/nowhere' })
    expect(result.statusCode).toBe(404)
    expect(result.headers?.['content-type']).toBe('application/problem+json')
  })
})

describe('the deployed bundle against a DynamoDB that never answers', () => {
  it('answers 503 + Retry-After in problem+json inside the budget, after more than one connection', async () => {
    const event = sampleEvents(join(PROJECT_ROOT, 'events'), eventValues(await newIssuer())).find(
      (e) => e.file === 'grant.json',
    )?.event as APIGatewayProxyEventV2
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--no-warnings',
        '--input-type=module',
        '-e',
        HUNG_DYNAMODB_RUN,
        bundleOf('GrantTokens'),
        JSON.stringify(event),
      ],
      { env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT' } },
    )
    const { result, remainingMs, connections } = JSON.parse(stdout) as {
      result: APIGatewayProxyStructuredResultV2
      remainingMs: number
      connections: number
    }
    expect(result.statusCode).toBe(503)
    expect(result.headers?.['content-type']).toBe('application/problem+json')
    expect(result.headers?.['retry-after']).toBe('1')
    expect(JSON.parse(result.body ?? '{}').code).toBe('service_unavailable')
    expect(connections).toBeGreaterThan(1)
    // What Lambda sees: the answer came with time left on the context (Lambda stops the function
    // at zero), and no later than the deadline, which keeps the answer margin back.
    expect(remainingMs).toBeGreaterThanOrEqual(BUDGET.answerMarginMs - HUNG_STEP_MS)
  })

  // Routes and consumers alike (GrantStream, WebhookSender: wiring/queue-runtime.ts).
  const senders: readonly { id: string; sends?: readonly string[] }[] = [
    ...(ROUTES as readonly Route[]),
    ...(CONSUMERS as readonly ConsumerSpec[]),
  ].filter((r) => (r.sends ?? []).length > 0)
  it.each(senders.map((r) => r.id))(
    'stops %s at init without the URL of a queue it sends to, and loads with them',
    (id) => {
      // What the stack sets (functions/routes.ts and consumers.ts `sends`, wiring/queue-runtime.ts):
      // without it, the first commit would store a batch and then find nowhere to send its chunks.
      const urls = (senders.find((r) => r.id === id)?.sends ?? []).map(
        (queue) => (QUEUES.find((q) => q.id === queue) as QueueSpec).urlVariable,
      )
      const load = (values: Record<string, string | undefined>) => {
        const env: Record<string, string | undefined> = {
          ...process.env,
          POWERTOOLS_LOG_LEVEL: 'SILENT',
        }
        for (const name of urls) delete env[name]
        for (const [name, value] of Object.entries(values))
          if (value !== undefined) env[name] = value
        const script = `
        const { handler } = await import(${JSON.stringify(`file://${bundleOf(id)}`)})
        process.stdout.write(typeof handler)`
        return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
          env,
          encoding: 'utf8',
        })
      }
      const all = Object.fromEntries(
        urls.map((name) => [name, `https://sqs.us-east-1.amazonaws.com/123456789012/${name}`]),
      )
      for (const name of urls) {
        for (const missing of [undefined, '']) {
          const failed = load({ ...all, [name]: missing })
          expect(failed.status).not.toBe(0)
          expect(failed.stderr).toContain(`Missing required environment variable ${name}.`)
        }
      }
      const loaded = load(all)
      expect({ status: loaded.status, stdout: loaded.stdout }).toEqual({
        status: 0,
        stdout: 'function',
      })
    },
  )
})
