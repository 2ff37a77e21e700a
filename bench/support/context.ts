import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { loadConfig } from '../../functions/config'
import { makeAdmin } from '../../functions/core/admin'
import { hashApiKey } from '../../functions/domain/api-key'
import { MAX_RATE_LIMIT } from '../../functions/domain/rate-limit'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import { createDocumentClient, createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { RATE_ITEM_PREFIX } from '../../functions/stores/rate-leases.dynamodb'
import type { TableKey } from '../../functions/table-schema'
import { createLocalApi, type LambdaHandler, type RouteHandlers } from '../../local/http-server'
import { eventValues, sampleEvents } from '../../local/sam-events'
import { ensureTables } from '../../local/tables'
import { buildBenchRoutes } from './route-handlers'

export const GRANT_ROUTE = 'POST /programs/{programId}/grant-tokens'
/** The management list routes the bench times (manage-reads.ts). */
export const MANAGE_LIST_ROUTES = [
  'GET /manage/issuers/{issuerId}/programs',
  'GET /manage/issuers/{issuerId}/keys',
  'GET /manage/issuers/{issuerId}/programs/{programId}/grants',
  'GET /manage/issuers/{issuerId}/audit',
] as const

type Env = Record<string, string | undefined>

/** Every benchmark's starting point; what needs DynamoDB Local is built on first use. */
export type BenchContext = Awaited<ReturnType<typeof createBenchContext>>
export type Database = Awaited<ReturnType<BenchContext['database']>>

/**
 * Built by the runner (bench/run.ts), the bench's one reader of the environment: `env` is the
 * functions' environment as the runner set it, `database` DynamoDB Local's endpoint and the
 * bench's table names (absent when no chosen benchmark needs it).
 */
export const createBenchContext = ({
  root,
  env,
  database,
}: {
  root: string
  env: Env
  database?: { endpoint: string; tables: Record<TableKey, string> }
}) => {
  const started = Date.now()
  const log = (text: string) => process.stderr.write(`${text}\n`)

  // Request logs go to stdout in Lambda; here they are formatted as usual and then dropped (the
  // runner mutes them for its whole run and writes its table with realStdout).
  const realStdout = process.stdout.write.bind(process.stdout)
  let logBytes = 0
  const muteLogs = () => {
    process.stdout.write = ((chunk: string | Uint8Array) => {
      logBytes += chunk.length
      return true
    }) as typeof process.stdout.write
  }

  /** Figures one benchmark leaves for a later one (the peak RSS after the HTTP load). */
  const measures: { rssAfterLoadKB?: number } = {}

  const local = () => {
    if (!database) throw new Error('this benchmark needs DynamoDB Local: the runner started none')
    return database
  }
  // Tables and seed data are set-up, not measured: a client without the service's 1.5 s timeouts,
  // which a freshly started DynamoDB Local on a busy machine can outlast.
  let setup: Promise<DynamoDBClient> | undefined
  const setUp = () => {
    setup ??= (async () => {
      const { endpoint, tables } = local()
      const client = new DynamoDBClient({
        endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      })
      await ensureTables(client, tables)
      return client
    })()
    return setup
  }

  let db: ReturnType<typeof openDatabase> | undefined
  const seeded = () => {
    db ??= openDatabase()
    return db
  }
  const openDatabase = async () => {
    const { endpoint, tables } = local()
    const config = loadConfig(env)
    const dynamodb = createDynamoDbClient({
      endpoint: config.dynamodbEndpoint,
      region: config.awsRegion,
    })
    const documentClient = createDocumentClient(dynamodb)
    const admin = makeAdmin(new DynamoDbAdminStore(createDocumentClient(await setUp()), tables))
    const { issuerId } = await admin.createIssuer({ name: 'Bench' })
    const programs = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        admin.createProgram({ issuer: issuerId, mode: 'TEST', name: `bench ${i}` }),
      ),
    )
    const programIds = programs.map((p) => p.programId)
    const { secret: apiKey } = await admin.createKey({ issuer: issuerId, mode: 'TEST' })
    // The bench's key may go as fast as the stage: its rate limit is not what the bench measures.
    await documentClient.send(
      new UpdateCommand({
        TableName: tables.apiKeys,
        Key: { keyHash: hashApiKey(apiKey) },
        UpdateExpression: 'SET rateLimit = :max',
        ExpressionAttributeValues: { ':max': MAX_RATE_LIMIT },
      }),
    )
    const handlers = await buildBenchRoutes({ config, dynamodb, documentClient }, [
      GRANT_ROUTE,
      ...MANAGE_LIST_ROUTES,
    ])
    const grantHandler = handlers.get(GRANT_ROUTE) as LambdaHandler

    const template = sampleEvents(
      join(root, 'events'),
      eventValues({
        issuerId,
        programs: { TEST: programIds[0] as string, LIVE: '' },
        keys: { TEST: apiKey, LIVE: '' },
      }),
    ).find((e) => e.file === 'grant.json')?.event as Parameters<LambdaHandler>[0]
    let sequence = 0
    /** A number never used before in this run: idempotency keys, request and grant ids. */
    const next = () => sequence++
    const grantEvent = (key = apiKey, programId = programIds[0] as string) => ({
      ...template,
      headers: {
        ...template.headers,
        'x-api-key': key,
        'idempotency-key': `bench-${started}-${next()}`,
      },
      pathParameters: { programId },
      rawPath: `/programs/${programId}/grant-tokens`,
      requestContext: { ...template.requestContext, requestId: `bench-${sequence}` },
    })
    const context = {
      awsRequestId: 'bench',
      functionName: 'bench',
      getRemainingTimeInMillis: () => 10_000,
    } as never
    const invoke = async (event = grantEvent()) => {
      const result = await grantHandler(event, context)
      if (result.statusCode !== 201)
        throw new Error(`handler answered ${result.statusCode}: ${result.body}`)
    }

    // DynamoDB calls: counted and timed by an SDK middleware around each whole call.
    // Leases of a key's rate bucket (sent in the background, core/rate-limiter.ts): apart.
    const meter = { calls: [] as string[], leases: [] as string[], ms: 0, conflicts: 0 }
    dynamodb.middlewareStack.add(
      (next, ctx) => async (args) => {
        const key = JSON.stringify((args.input as { Key?: unknown }).Key ?? {})
        const lease =
          ctx.commandName === 'UpdateItemCommand' && key.includes(`"${RATE_ITEM_PREFIX}`)
        ;(lease ? meter.leases : meter.calls).push(ctx.commandName ?? '?')
        const t0 = performance.now()
        try {
          return await next(args)
        } catch (error) {
          const reasons =
            (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []
          if (reasons.some((r) => r.Code === 'TransactionConflict')) meter.conflicts++
          throw error
        } finally {
          meter.ms += performance.now() - t0
        }
      },
      { step: 'initialize', name: 'bench-meter' },
    )

    return {
      endpoint,
      tables,
      config,
      dynamodb,
      documentClient,
      admin,
      issuerId,
      programIds,
      apiKey,
      handlers,
      grantHandler,
      template,
      grantEvent,
      context,
      invoke,
      next,
      meter,
    }
  }

  let server: ReturnType<typeof startLocalApi> | undefined
  /**
   * The local HTTP server over the bench's handlers, each timed, and a load generator in its own
   * process (bench/load.ts: autocannon) so that it does not share the server's event loop.
   */
  const startLocalApi = async () => {
    const d = await seeded()
    let handlerMs = 0
    let handled = 0
    const timed: RouteHandlers = new Map(
      [...d.handlers].map(([key, handler]) => [
        key,
        (async (event, ctx) => {
          const t0 = performance.now()
          try {
            return await handler(event, ctx)
          } finally {
            handlerMs += performance.now() - t0
            handled++
          }
        }) as LambdaHandler,
      ]),
    )
    const api = createLocalApi(timed)
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r))
    const baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`
    const body = JSON.stringify({
      recipient: { email: 'ann@example.com' },
      reason: 'Benchmark',
      amount: 1,
    })
    // Asynchronous on purpose: the server shares this process's event loop.
    const load = async (paths: string[], connections: number, duration: number) => {
      handlerMs = 0
      handled = 0
      d.meter.ms = 0
      d.meter.calls = []
      d.meter.conflicts = 0
      const options = {
        url: baseUrl,
        paths,
        connections,
        duration,
        headers: { 'content-type': 'application/json', 'x-api-key': d.apiKey },
        body,
      }
      const { stdout: raw } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', join(root, 'bench/load.ts'), JSON.stringify(options)],
        { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      )
      const r = JSON.parse(raw) as {
        requests: { average: number }
        latency: { p50: number; p99: number }
        errors: number
        timeouts: number
        non2xx: number
        '2xx': number
      }
      return {
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors: r.errors + r.timeouts + r.non2xx,
        ok: r['2xx'],
        handlerMsPerRequest: handled ? handlerMs / handled : 0,
        dbMsPerRequest: handled ? d.meter.ms / handled : 0,
        conflicts: d.meter.conflicts,
      }
    }
    const spread = d.programIds.map((id) => `/programs/${id}/grant-tokens`)
    return { load, spread, close: () => api.close() }
  }

  return {
    root,
    env,
    started,
    log,
    muteLogs,
    realStdout,
    logBytesDropped: () => logBytes,
    measures,
    /** DynamoDB Local's endpoint and the bench's tables, unseeded (the contention model's own). */
    dynamoDbLocal: async () => {
      await setUp()
      return local()
    },
    /** DynamoDB Local's tables, seeded (an issuer, 16 programs, a key), and the bench's handlers. */
    database: seeded,
    /** The local HTTP server, started on first use and closed by `close`. */
    localApi: () => {
      server ??= startLocalApi()
      return server
    },
    close: async () => {
      if (server) (await server).close()
      server = undefined
    },
  }
}

export type LoadResult = Awaited<ReturnType<Awaited<ReturnType<BenchContext['localApi']>>['load']>>
