import type { AddressInfo } from 'node:net'
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb'
import type { Runtime } from '../../functions/composition'
import { makeAdmin } from '../../functions/core/admin'
import type { ApiKeyRecord } from '../../functions/domain/api-key'
import { generateApiKey, hashApiKey, type Mode, maskApiKey } from '../../functions/domain/api-key'
import { batchListSlot } from '../../functions/domain/batch'
import type { GrantRecord } from '../../functions/domain/grant'
import { allGrantListSlots } from '../../functions/domain/grant-slots'
import { newId } from '../../functions/domain/ids'
import type { ProgramStatus } from '../../functions/domain/program'
import { MAX_SHARDS, type ShardRecord, shardKeys } from '../../functions/domain/program-shards'
import { MAX_RATE_LIMIT } from '../../functions/domain/rate-limit'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import {
  queryAll as queryPages,
  type Send,
  scanAll as scanPages,
} from '../../functions/stores/paging'
import { RATE_ITEM_PREFIX } from '../../functions/stores/rate-leases.dynamodb'
import { INDEX } from '../../functions/table-schema'
import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import {
  buildRouteHandlers,
  createLocalApi,
  type LambdaHandler,
  type LocalApiOptions,
  type RouteHandlers,
} from '../../local/http-server'
import { type LocalPipeline, type PipelineOptions, startLocalPipeline } from '../../local/pipeline'
import { identity, testAuthorizer } from './identity'
import { checkClock, config, documentClient, dynamodb, runtime } from './runtime'

/**
 * The local server, in this test process, on a free port: real HTTP in front of the same
 * handlers `npm start` and Lambda run, backed by the run's DynamoDB Local, with `user` routes behind
 * the JWT authorizer of the run's Cognito emulator and its mail sink at `/_local/mail`. Tests that
 * watch or hold the handlers pass their own wrapped ones; tests of routes of their own add
 * `handlers` (and `options.matchRoute`); and the adapter's options (clock, timeouts).
 */
export const startApi = async (
  setup: { wrap?: (routeKey: string, handler: LambdaHandler) => LambdaHandler } & {
    handlers?: RouteHandlers
    options?: LocalApiOptions
    /** What the routes are built over; default this file's (test/support/runtime.ts). */
    runtime?: Runtime
    /**
     * The local pipeline's queues and their consumers (local/pipeline.ts, as npm start runs them),
     * for routes that send to a queue (a batch's commit): the routes get its senders. `true`: the
     * queues and npm start's consumers, without the grants table's stream (other files' grants are
     * not this file's business); an object: those options on top.
     */
    pipeline?: boolean | Partial<Omit<PipelineOptions, 'runtime'>>
  } = {},
) => {
  const base = setup.runtime ?? runtime
  const pipeline: LocalPipeline | undefined = setup.pipeline
    ? await startLocalPipeline({
        runtime: base,
        consumers: LOCAL_CONSUMERS,
        stream: false,
        startAt: 'LATEST',
        pollMs: 50,
        ...(typeof setup.pipeline === 'object' ? setup.pipeline : {}),
      })
    : undefined
  const routesRuntime = pipeline ? { ...base, queues: pipeline.senders } : base
  const handlers: RouteHandlers = new Map(
    [...buildRouteHandlers(routesRuntime), ...(setup.handlers ?? [])].map(([routeKey, handler]) => [
      routeKey,
      setup.wrap ? setup.wrap(routeKey, handler) : handler,
    ]),
  )
  const server = createLocalApi(handlers, {
    authorizer: testAuthorizer(),
    mailFile: identity().mailFile,
    ...setup.options,
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    server,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    /** The pipeline started with `pipeline` (queues, drain); undefined otherwise. */
    pipeline,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
      await pipeline?.stop()
    },
  }
}

export const adminTables = config.tables
export const adminStore = new DynamoDbAdminStore(documentClient, adminTables)

/** The run's document client as the stores' paging helpers take it. */
const sendDocument: Send = <T>(command: { readonly input: object }) =>
  documentClient.send(command as never) as Promise<T>
export const admin = makeAdmin(adminStore)

/** A key written straight to the table, for states the admin use cases refuse to create. */
/**
 * A key as the admin side makes it. Its rate limit is the highest (MAX_RATE_LIMIT) unless a test
 * gives one: tests send requests as fast as the machine goes, and the limit is not their subject.
 */
export const createKey = async (input: {
  issuerId: string
  mode: Mode
  expiresAt?: number
  rateLimit?: number
}) => {
  const secret = generateApiKey(input.mode)
  const record: ApiKeyRecord = {
    keyHash: hashApiKey(secret),
    keyId: newId('apiKey'),
    issuerId: input.issuerId,
    mode: input.mode,
    status: 'active',
    createdAt: new Date().toISOString(),
    ...(input.expiresAt === undefined ? {} : { expiresAt: input.expiresAt }),
    ...maskApiKey(secret),
    rateLimit: input.rateLimit ?? MAX_RATE_LIMIT,
  }
  await adminStore.createApiKey(record)
  return { secret, record }
}

export const revokeKey = (keyHash: string) => adminStore.revokeApiKey(keyHash)

/**
 * Moves the clock the grant path's access cache ages its checks by (the runtime's `monotonic`,
 * test/support/runtime.ts `checkClock`) forward by `ms`: a test that revokes a key or pauses a
 * program moves it by CHECK_BOUND_MS to see the change take effect, instead of sleeping a second.
 */
export const advanceCheckClock = (ms: number) => checkClock.advance(ms)
/** Stops the cache's clock (it then moves only by advanceCheckClock) until `thaw` is called. */
export const freezeCheckClock = () => {
  // A whole number: the clock then ages by exactly what tests add (a fractional base can make
  // 1,000 ms of advances measure 999.9999, and a check due at the bound stays fresh).
  checkClock.freeze(Math.round(checkClock.now()))
  return { thaw: () => checkClock.thaw() }
}

export const setProgramStatus = (programId: string, status: ProgramStatus) =>
  adminStore.setProgramStatus(programId, status, ['active', 'paused', 'closed'])

/** A fresh issuer with one program and one key per mode, so tests never share state. */
export const newIssuer = async (options: { pool?: number } = {}) => {
  const { issuerId } = await admin.createIssuer({ name: 'Test issuer' })
  const pool = options.pool === undefined ? {} : { pool: String(options.pool) }
  const [test, live, testKey, liveKey] = await Promise.all([
    admin.createProgram({ issuer: issuerId, mode: 'TEST', name: 'test program', ...pool }),
    admin.createProgram({ issuer: issuerId, mode: 'LIVE', name: 'live program', ...pool }),
    createKey({ issuerId, mode: 'TEST' }),
    createKey({ issuerId, mode: 'LIVE' }),
  ])
  return {
    issuerId,
    programs: { TEST: test.programId, LIVE: live.programId },
    keys: { TEST: testKey.secret, LIVE: liveKey.secret },
    keyRecords: { TEST: testKey.record, LIVE: liveKey.record },
  }
}

export type Issuer = Awaited<ReturnType<typeof newIssuer>>

/**
 * Every item a Scan finds, following its pages: a Scan reads at most 1 MB a page, and the run's
 * tables outgrow that, so a check over one page could miss what it looks for.
 */
export const scanAll = (input: ScanCommandInput) =>
  scanPages<Record<string, unknown>>(sendDocument, input)

/**
 * An issuer's batches in the grants table: each of its programs' batch listing (`byProgramSlot`
 * under batchListSlot, where every batch is written), not a Scan of the run's shared table. The
 * chunk items carry no issuerId, so a Scan for the issuer's `batch#` items found the same.
 */
export const batchItemsOf = async (issuer: Pick<Issuer, 'issuerId' | 'programs'>) =>
  (
    await Promise.all(
      Object.values(issuer.programs).map((programId) =>
        queryAll({
          TableName: config.tables.grants,
          IndexName: INDEX.grantsByProgramSlot,
          KeyConditionExpression: 'programSlot = :s',
          FilterExpression: 'issuerId = :i',
          ExpressionAttributeValues: { ':s': batchListSlot(programId), ':i': issuer.issuerId },
        }),
      ),
    )
  ).flat()

/** Every item of one partition of a table or index, following its pages. */
export const queryAll = (input: QueryCommandInput) =>
  queryPages<Record<string, unknown>>(sendDocument, input)

/**
 * Everything the database holds for a program. Its grants are read from their `byProgramSlot`
 * partitions (every grant the service writes has its slot: grant-slots.ts), not by scanning the
 * run's shared grants table, which every file fills and so made each check slower than the last;
 * DynamoDB Local updates an index with its table, so what was written is there. Its head and every
 * shard it can have (MAX_SHARDS keys) are read strongly consistent.
 */
export const programState = async (programId: string) => {
  const [slots, program, shards] = await Promise.all([
    Promise.all(
      allGrantListSlots(programId).map((slot) =>
        queryAll({
          TableName: config.tables.grants,
          IndexName: INDEX.grantsByProgramSlot,
          KeyConditionExpression: 'programSlot = :s',
          ExpressionAttributeValues: { ':s': slot },
        }),
      ),
    ),
    // The head with `issued` and `remaining` summed over its shards.
    adminStore.getProgram(programId),
    shardsOf(programId),
  ])
  const grants = slots.flat() as GrantRecord[]
  return { grants, issued: program?.issued ?? 0, program, shards }
}

/** The program's shard items, whichever of the MAX_SHARDS it can have exist. */
const shardsOf = async (programId: string) => {
  const found: ShardRecord[] = []
  let keys: Record<string, unknown>[] | undefined = shardKeys(programId, MAX_SHARDS)
  while (keys && keys.length > 0) {
    const page: BatchGetCommandOutput = await documentClient.send(
      new BatchGetCommand({
        RequestItems: { [config.tables.programs]: { Keys: keys, ConsistentRead: true } },
      }),
    )
    found.push(...((page.Responses?.[config.tables.programs] ?? []) as ShardRecord[]))
    keys = page.UnprocessedKeys?.[config.tables.programs]?.Keys
  }
  return found
}

export const grantBody = (overrides: Record<string, unknown> = {}) => ({
  recipient: { email: 'ann@example.com' },
  reason: 'Referral bonus',
  amount: 1,
  ...overrides,
})

export type Call = {
  status: number
  headers: Headers
  body: Record<string, unknown>
  text: string
}

export const request = async (
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Call> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: options.headers,
    body: options.body,
  })
  const text = await response.text()
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(text)
  } catch {}
  return { status: response.status, headers: response.headers, body, text }
}

export const postGrant = (
  baseUrl: string,
  programId: string,
  apiKey: string | undefined,
  body: unknown = grantBody(),
  headers: Record<string, string> = {},
) =>
  request(baseUrl, 'POST', `/programs/${programId}/grant-tokens`, {
    headers: {
      'content-type': 'application/json',
      ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }),
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

/** Counts the requests the process's DynamoDB client sends (after SDK retries, one per wire call). */
export const countRoundTrips = () => {
  const calls: string[] = []
  // Leases of a key's rate bucket, sent in the background (core/rate-limiter.ts): counted apart.
  const leases: string[] = []
  const name = `round-trip-counter-${Math.random()}`
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? 'unknown'
      const key = JSON.stringify((args.input as { Key?: unknown }).Key ?? {})
      if (command === 'UpdateItemCommand' && key.includes(`"${RATE_ITEM_PREFIX}`)) {
        leases.push(command)
      } else {
        calls.push(command)
      }
      return next(args)
    },
    { step: 'finalizeRequest', name },
  )
  return {
    calls,
    leases,
    reset: () => {
      calls.splice(0)
      leases.splice(0)
    },
    stop: () => dynamodb.middlewareStack.remove(name),
  }
}

/** The contract of every error answer: problem+json with its code, and nothing internal. */
export const expectProblem = (
  call: Pick<Call, 'status' | 'body'> & Partial<Pick<Call, 'headers' | 'text'>>,
  status: number,
  code: string,
) => {
  expect({ status: call.status, code: call.body.code }).toEqual({ status, code })
  expect(call.body).toMatchObject({
    type: `urn:virtual-shares:problem:${code}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    code,
    requestId: expect.any(String),
  })
  // Raw-socket tests have no parsed headers; everything else checks them too.
  if (call.headers) {
    expect(call.headers.get('content-type')).toBe('application/problem+json')
    expect(call.body.requestId).toBe(call.headers.get('x-request-id'))
  }
  if (call.text !== undefined) expect(call.text).not.toMatch(/\n\s+at |Error:|ZodError|arn:aws/)
}

/** Runs `act` and asserts it left the program's grants and counter exactly as they were. */
export const expectNothingWritten = async (programId: string, act: () => Promise<void>) => {
  const before = await programState(programId)
  await act()
  const after = await programState(programId)
  expect(after.grants.length).toBe(before.grants.length)
  expect(after.issued).toBe(before.issued)
}
