import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import {
  DescribeTableCommand,
  DynamoDBClient,
  TransactionCanceledException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb'
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb'
import type { Io } from '../../cli/admin-cli'
import { runCli } from '../../cli/main'
import type { ApiKeyRecord } from '../../functions/domain/api-key'
import { generateApiKey, hashApiKey, maskApiKey } from '../../functions/domain/api-key'
import { newId } from '../../functions/domain/ids'
import type { AuditEntry } from '../../functions/domain/people'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import type { AdminTableNames } from '../../functions/stores/admin.store'
import { ADMIN_OTHER_ACCESS, adminAccessLines } from '../../functions/stores/admin-access'
import { keyIdPointer } from '../../functions/stores/api-keys.dynamodb'
import { INDEX, KEY_ID_POINTER, TABLES, tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { config, documentClient, dynamodb } from '../support/runtime'
import { interceptor } from '../support/sdk-intercept'

/**
 * The admin CLI in this process (cli/main.ts, which bin/admin.ts runs on process.argv), on the
 * run's DynamoDB Local, with a DynamoDB client of the test's own so SDK middleware can stand in
 * for what DynamoDB Local never does: a transaction conflict, or an index that lags its table.
 */
const suffix = `cli-inproc-${process.pid}`
const tables: AdminTableNames = tableNames('vs', `-${suffix}`)
const dir = mkdtempSync(join(tmpdir(), 'vs-admin-inproc-'))
const endpointFile = join(dir, 'dynamodb-endpoint.json')
writeFileSync(endpointFile, JSON.stringify({ endpoint: config.dynamodbEndpoint, tables }))

const base = new DynamoDBClient({
  endpoint: config.dynamodbEndpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
})
const client = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true },
})

type Run = { code: number; out: string; err: string[] }
const cli = async (...args: string[]): Promise<Run> => {
  const out: string[] = []
  const err: string[] = []
  const io: Io = { out: (t) => out.push(t), err: (t) => err.push(t) }
  const code = await runCli(args, io, { documentClient: client, endpointFile })
  return { code, out: out.join('\n'), err }
}
const json = async (...args: string[]) => {
  const run = await cli(...args, '--json')
  if (run.code !== 0) throw new Error(`${args.join(' ')}: ${run.err.join('\n')}`)
  return JSON.parse(run.out)
}

/** Middleware on the test's client (test/support/sdk-intercept.ts). */
const intercept = interceptor(base)

const cancelledForConflict = () =>
  new TransactionCanceledException({
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict, None, None]',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'None' }],
  })

/** The first `times` sends of `command` fail with `error()`; the rest reach DynamoDB Local. */
const failFirst = (command: string, times: number, error: () => Error) => {
  const sent = { failed: 0, passed: 0 }
  const stop = intercept(async (name, _input, next) => {
    if (name !== command) return next()
    if (sent.failed < times) {
      sent.failed++
      throw error()
    }
    sent.passed++
    return next()
  })
  return { sent, stop }
}

const readKey = async (keyHash: string) =>
  (
    await client.send(
      new GetCommand({ TableName: tables.apiKeys, Key: { keyHash }, ConsistentRead: true }),
    )
  ).Item as (ApiKeyRecord & { rolledTo?: string; createdBy?: string }) | undefined
const readProgram = async (programId: string) =>
  (
    await client.send(
      new GetCommand({ TableName: tables.programs, Key: { programId }, ConsistentRead: true }),
    )
  ).Item
const keyHashOf = async (keyId: string) =>
  (
    await client.send(
      new GetCommand({
        TableName: tables.apiKeys,
        Key: { keyHash: keyIdPointer(keyId) },
        ConsistentRead: true,
      }),
    )
  ).Item?.[KEY_ID_POINTER.target] as string

/** A key as the version before pointers wrote it: the key item alone. */
const legacyKey = async (issuerId: string) => {
  const secret = generateApiKey('TEST')
  const record: ApiKeyRecord = {
    keyHash: hashApiKey(secret),
    keyId: newId('apiKey'),
    issuerId,
    mode: 'TEST',
    status: 'active',
    createdAt: new Date().toISOString(),
    ...maskApiKey(secret),
  }
  await client.send(new PutCommand({ TableName: tables.apiKeys, Item: record }))
  return record
}

let issuerId: string
let programId: string
beforeAll(async () => {
  await ensureTables(dynamodb, tables)
  issuerId = (await json('issuer', 'create', '--name', 'In process')).issuerId
  programId = (
    await json('program', 'create', '--issuer', issuerId, '--mode', 'TEST', '--name', 'P')
  ).programId
})
afterAll(() => base.destroy())

describe('finding a key by id (a pointer item read consistently, not the lagging index)', () => {
  /** The `byKeyId` index as real DynamoDB may show it just after a write: without the key. */
  const laggingIndex = () =>
    intercept(async (name, input, next) =>
      name === 'QueryCommand' && input.IndexName === INDEX.keysById
        ? { output: { Items: [], Count: 0, ScannedCount: 0, $metadata: {} }, response: {} }
        : next(),
    )

  it('revokes and rolls a key the moment it is created, and the key it was rolled to', async () => {
    const stop = laggingIndex()
    try {
      const created = await json('key', 'create', '--issuer', issuerId, '--mode', 'TEST')
      const revoked = await cli('key', 'revoke', created.keyId)
      expect(revoked).toMatchObject({ code: 0, err: [] })
      expect((await readKey(hashApiKey(created.secret)))?.status).toBe('revoked')

      const other = await json('key', 'create', '--issuer', issuerId, '--mode', 'TEST')
      const rolled = await json('key', 'roll', other.keyId, '--grace', '0')
      expect(rolled.old.keyId).toBe(other.keyId)
      expect(await keyHashOf(rolled.keyId)).toBe(hashApiKey(rolled.secret))
      const again = await json('key', 'roll', rolled.keyId)
      expect(again.old.keyId).toBe(rolled.keyId)
      expect((await cli('key', 'revoke', again.keyId)).code).toBe(0)
    } finally {
      stop()
    }
  })

  it('falls back to the index for a key created before pointers existed', async () => {
    const old = await legacyKey(issuerId)
    const stop = laggingIndex()
    try {
      // The simulation bites: without a pointer, a lagging index cannot find the key.
      expect((await cli('key', 'revoke', old.keyId)).err).toEqual([`error: No key ${old.keyId}.`])
    } finally {
      stop()
    }
    expect((await cli('key', 'revoke', old.keyId)).code).toBe(0)
    expect((await readKey(old.keyHash))?.status).toBe('revoked')
    const legacy = await legacyKey(issuerId)
    const rolled = await json('key', 'roll', legacy.keyId, '--grace', '1h')
    expect((await readKey(legacy.keyHash))?.rolledTo).toBe(rolled.keyId)
  })

  it('keeps pointers out of every listing and out of reach of the grant path', async () => {
    const created = await json('key', 'create', '--issuer', issuerId, '--mode', 'LIVE')
    const pointer = (
      await client.send(
        new GetCommand({
          TableName: tables.apiKeys,
          Key: { keyHash: keyIdPointer(created.keyId) },
          ConsistentRead: true,
        }),
      )
    ).Item
    // Only the two attributes: no keyId, issuerId or createdAt (so in no index), no status (so
    // the grant's condition on the key would fail on it).
    expect(pointer).toEqual({
      keyHash: `keyId#${created.keyId}`,
      [KEY_ID_POINTER.target]: hashApiKey(created.secret),
    })
    const all = (await json('key', 'list')) as { keyId: string }[]
    const byIssuer = (await json('key', 'list', '--issuer', issuerId)) as { keyId: string }[]
    const scanned = (
      await client.send(new ScanCommand({ TableName: tables.apiKeys, ConsistentRead: true }))
    ).Items as { keyHash: string }[]
    const keyItems = scanned.filter((i) => !i.keyHash.startsWith('keyId#'))
    expect(all.map((k) => k.keyId).sort()).toEqual(
      keyItems.map((k) => (k as unknown as ApiKeyRecord).keyId).sort(),
    )
    expect(byIssuer.map((k) => k.keyId).sort()).toEqual(all.map((k) => k.keyId).sort())
    expect(all.every((k) => /^key_/.test(k.keyId))).toBe(true)
    expect(scanned.length).toBeGreaterThan(keyItems.length)
    // The grant path looks keys up by SHA-256 hex only, which never starts with "keyId#".
    for (let i = 0; i < 200; i++) {
      expect(hashApiKey(generateApiKey(i % 2 ? 'LIVE' : 'TEST'))).toMatch(/^[0-9a-f]{64}$/)
    }
  })
})

describe('writes retried on transaction conflicts (grants in flight hold the item)', () => {
  // Every change is one transaction with its audit entry: a conflict cancels it whole.
  it('revokes a key after 5 conflicts', async () => {
    const created = await json('key', 'create', '--issuer', issuerId, '--mode', 'TEST')
    const { sent, stop } = failFirst('TransactWriteItemsCommand', 5, cancelledForConflict)
    try {
      const run = await cli('key', 'revoke', created.keyId)
      expect(run).toMatchObject({ code: 0, err: [] })
      expect(run.out).toContain(`Revoked ${created.keyId}`)
    } finally {
      stop()
    }
    expect(sent).toEqual({ failed: 5, passed: 1 })
    expect((await readKey(hashApiKey(created.secret)))?.status).toBe('revoked')
  })

  it.each([
    ['pause', 'paused'],
    ['resume', 'active'],
    ['close', 'closed'],
  ])('%ss a program after 3 conflicts', async (action, status) => {
    const { sent, stop } = failFirst('TransactWriteItemsCommand', 3, cancelledForConflict)
    try {
      expect(await cli('program', action, programId)).toMatchObject({ code: 0, err: [] })
    } finally {
      stop()
    }
    expect(sent).toEqual({ failed: 3, passed: 1 })
    expect((await readProgram(programId))?.status).toBe(status)
  })

  it('rolls a key after 2 cancelled transactions', async () => {
    const created = await json('key', 'create', '--issuer', issuerId, '--mode', 'TEST')
    const { sent, stop } = failFirst('TransactWriteItemsCommand', 2, cancelledForConflict)
    try {
      expect((await cli('key', 'roll', created.keyId)).code).toBe(0)
    } finally {
      stop()
    }
    expect(sent).toEqual({ failed: 2, passed: 1 })
    expect((await readKey(hashApiKey(created.secret)))?.rolledTo).toMatch(/^key_/)
  })

  it('gives up after 8 attempts: one line, exit 1, nothing changed', async () => {
    const created = await json('key', 'create', '--issuer', issuerId, '--mode', 'TEST')
    const { sent, stop } = failFirst(
      'TransactWriteItemsCommand',
      Number.POSITIVE_INFINITY,
      cancelledForConflict,
    )
    const started = Date.now()
    let run: Run
    try {
      run = await cli('key', 'revoke', created.keyId)
    } finally {
      stop()
    }
    const elapsed = Date.now() - started
    expect(run.code).toBe(1)
    expect(run.out).toBe('')
    expect(run.err).toHaveLength(1)
    expect(run.err[0]).toMatch(
      new RegExp(
        `^error: Revoking key ${created.keyId} did NOT take effect: grants in flight kept it busy \\(DynamoDB transaction conflict, 8 attempts in \\d+\\.\\d s\\)\\. Run the command again\\.$`,
      ),
    )
    expect(sent).toEqual({ failed: 8, passed: 0 })
    // Equal jitter: at least half of 50+100+...+1000 ms, at most all of it (3.55 s).
    expect(elapsed).toBeGreaterThanOrEqual(1_700)
    expect(elapsed).toBeLessThan(5_000)
    expect((await readKey(hashApiKey(created.secret)))?.status).toBe('active')
  })

  it('gives up on a program and on a roll the same way, nothing changed', async () => {
    const program = (
      await json('program', 'create', '--issuer', issuerId, '--mode', 'TEST', '--name', 'Busy')
    ).programId
    const before = await readProgram(program)
    const update = failFirst(
      'TransactWriteItemsCommand',
      Number.POSITIVE_INFINITY,
      cancelledForConflict,
    )
    let pause: Run
    try {
      pause = await cli('program', 'pause', program)
    } finally {
      update.stop()
    }
    expect(pause.code).toBe(1)
    expect(pause.err).toEqual([
      `error: Pausing program ${program} did NOT take effect: grants in flight kept it busy (DynamoDB transaction conflict, 8 attempts in ${pause.err[0]?.match(/in (\d+\.\d) s/)?.[1]} s). Run the command again.`,
    ])
    expect(await readProgram(program)).toEqual(before)

    const created = await json('key', 'create', '--issuer', issuerId, '--mode', 'TEST')
    const keysBefore = (await json('key', 'list', '--issuer', issuerId)).length
    const roll = failFirst(
      'TransactWriteItemsCommand',
      Number.POSITIVE_INFINITY,
      cancelledForConflict,
    )
    let rolled: Run
    try {
      rolled = await cli('key', 'roll', created.keyId)
    } finally {
      roll.stop()
    }
    expect(rolled.code).toBe(1)
    expect(rolled.err).toEqual([
      expect.stringMatching(
        /^error: Rolling key \S+ did NOT take effect: .* Run the command again\.$/,
      ),
    ])
    expect(rolled.out).toBe('')
    expect(await readKey(hashApiKey(created.secret))).not.toHaveProperty('rolledTo')
    expect((await json('key', 'list', '--issuer', issuerId)).length).toBe(keysBefore)
  })

  it('does not retry a refusal that is not a conflict', async () => {
    const program = (
      await json('program', 'create', '--issuer', issuerId, '--mode', 'LIVE', '--name', 'C')
    ).programId
    let updates = 0
    const stop = intercept(async (name, _input, next) => {
      if (name !== 'TransactWriteItemsCommand') return next()
      updates++
      // Someone closes the program between the CLI's read and its write.
      await client.send(
        new UpdateCommand({
          TableName: tables.programs,
          Key: { programId: program },
          UpdateExpression: 'SET #s = :closed',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':closed': 'closed' },
        }),
      )
      return next()
    })
    try {
      const run = await cli('program', 'pause', program)
      expect(run.err).toEqual([`error: Program ${program} is closed; closing is final.`])
    } finally {
      stop()
    }
    expect(updates).toBe(1)
  })
})

describe('program list reads counters from the base table, not from the index', () => {
  it('finds programs through byIssuerV2 (keys and mode only) and shows current counters', async () => {
    const issuer = (await json('issuer', 'create', '--name', 'Lister')).issuerId
    const live = await json(
      'program',
      'create',
      '--issuer',
      issuer,
      '--mode',
      'LIVE',
      '--name',
      'L',
      '--pool',
      '9',
    )
    const test = await json(
      'program',
      'create',
      '--issuer',
      issuer,
      '--mode',
      'TEST',
      '--name',
      'T',
    )
    // What a grant does to the program item: counters move (and nothing else).
    await client.send(
      new UpdateCommand({
        TableName: tables.programs,
        Key: { programId: live.programId },
        UpdateExpression: 'SET issued = :i, remaining = :r',
        ExpressionAttributeValues: { ':i': 4, ':r': 5 },
      }),
    )
    const { Items } = await client.send(
      new QueryCommand({
        TableName: tables.programs,
        IndexName: INDEX.programsByIssuer,
        KeyConditionExpression: 'issuerId = :i',
        ExpressionAttributeValues: { ':i': issuer },
      }),
    )
    for (const item of Items ?? []) {
      expect(Object.keys(item).sort()).toEqual(['createdAt', 'issuerId', 'mode', 'programId'])
    }
    expect(Items).toHaveLength(2)

    const calls: string[] = []
    const stop = intercept(async (name, input, next) => {
      calls.push(`${name} ${input.IndexName ?? ''}`.trim())
      return next()
    })
    let listed: { programId: string; issued: number; pool?: number; name: string }[]
    let liveOnly: { programId: string }[]
    try {
      listed = await json('program', 'list', '--issuer', issuer)
      liveOnly = await json('program', 'list', '--issuer', issuer, '--mode', 'LIVE')
    } finally {
      stop()
    }
    expect(listed.map((p) => [p.programId, p.issued, p.name])).toEqual([
      [live.programId, 4, 'L'],
      [test.programId, 0, 'T'],
    ])
    expect(liveOnly.map((p) => p.programId)).toEqual([live.programId])
    // The index finds the programs, one BatchGetItem reads their heads, one more their counter
    // shards (whose sums are `issued` and `remaining`).
    expect(calls).toEqual([
      `QueryCommand ${INDEX.programsByIssuer}`,
      'BatchGetItemCommand',
      'BatchGetItemCommand',
      `QueryCommand ${INDEX.programsByIssuer}`,
      'BatchGetItemCommand',
      'BatchGetItemCommand',
    ])
    const table = await cli('program', 'list', '--issuer', issuer)
    expect(table.out).toMatch(
      new RegExp(`${live.programId}\\s+${issuer}\\s+LIVE\\s+active\\s+4\\s+9\\s+L`),
    )
  })
})

describe("the audit log of the operator's changes", () => {
  it('writes one entry per change, as "operator CLI", in the transaction of the change, with no secret', async () => {
    const transactions: string[][] = []
    const stop = intercept(async (name, input, next) => {
      if (name === 'TransactWriteItemsCommand') {
        transactions.push(
          (input.TransactItems as Record<string, { TableName: string }>[]).map(
            (item) => `${Object.keys(item)[0]} ${Object.values(item)[0]?.TableName}`,
          ),
        )
      }
      return next()
    })
    let issuer: string
    let program: string
    let key: { keyId: string; secret: string }
    let rolled: { keyId: string; secret: string }
    try {
      issuer = (await json('issuer', 'create', '--name', 'Audited')).issuerId
      program = (
        await json('program', 'create', '--issuer', issuer, '--mode', 'TEST', '--name', 'A')
      ).programId
      for (const action of ['pause', 'resume', 'close']) await json('program', action, program)
      key = await json('key', 'create', '--issuer', issuer, '--mode', 'LIVE', '--expires-in', '30d')
      rolled = await json('key', 'roll', key.keyId, '--grace', '1h')
      await json('key', 'revoke', rolled.keyId)
    } finally {
      stop()
    }
    // Every change sent its items and its audit entry as one TransactWriteItems.
    expect(transactions).toHaveLength(8)
    for (const items of transactions) {
      expect(items.filter((i) => i === `Put ${tables.audit}`)).toHaveLength(1)
      expect(items.at(-1)).toBe(`Put ${tables.audit}`)
      expect(items.length).toBeGreaterThan(1)
    }
    const entries = async () =>
      ((
        await client.send(
          new QueryCommand({
            TableName: tables.audit,
            KeyConditionExpression: 'issuerId = :i',
            ExpressionAttributeValues: { ':i': issuer },
            ConsistentRead: true,
          }),
        )
      ).Items ?? []) as AuditEntry[]
    const log = await entries()
    expect(log.map((e) => [e.action, e.target])).toEqual([
      ['issuer.create', { type: 'issuer', id: issuer }],
      ['program.create', { type: 'program', id: program }],
      ['program.pause', { type: 'program', id: program }],
      ['program.resume', { type: 'program', id: program }],
      ['program.close', { type: 'program', id: program }],
      ['key.create', { type: 'key', id: key.keyId }],
      ['key.roll', { type: 'key', id: key.keyId }],
      ['key.revoke', { type: 'key', id: rolled.keyId }],
    ])
    for (const entry of log) {
      expect(entry.actor).toEqual({ kind: 'operator', label: 'operator CLI' })
      expect(entry).not.toHaveProperty('requestId')
      expect(entry.at).toBe(entry.entryId.split('#')[0])
    }
    expect(log[6]?.details).toEqual({
      newKeyId: rolled.keyId,
      oldExpiresAt: expect.stringMatching(/Z$/),
    })
    const text = JSON.stringify(log)
    for (const secret of [key.secret, rolled.secret]) {
      for (const form of [secret, secret.slice(8, 32), hashApiKey(secret)]) {
        expect(text).not.toContain(form)
      }
    }
    expect((await readKey(hashApiKey(key.secret)))?.createdBy).toBe('operator CLI')

    // Refused changes write no entry: a closed program, a revoked key, a key revoked again.
    expect((await cli('program', 'resume', program)).code).toBe(1)
    expect((await cli('key', 'roll', rolled.keyId)).err).toEqual([
      `error: Key ${rolled.keyId} is revoked; only an active key can be rolled.`,
    ])
    expect((await cli('key', 'revoke', rolled.keyId)).code).toBe(0)
    expect(await entries()).toEqual(log)
  })
})

/** The grants table as the first deploy of the slots upgrade leaves it: with `byProgram` too. */
const addLegacyGrantsIndex = async () => {
  const [index] = TABLES.grants.legacyIndexes
  // The run's shared client, not this file's: the IAM test records every call of that one.
  await dynamodb.send(
    new UpdateTableCommand({
      TableName: tables.grants,
      AttributeDefinitions: [
        { AttributeName: index.partitionKey.name, AttributeType: 'S' },
        { AttributeName: 'createdAt', AttributeType: 'S' },
      ],
      GlobalSecondaryIndexUpdates: [
        {
          Create: {
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
              { AttributeName: 'createdAt', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        },
      ],
    }),
  )
  for (;;) {
    const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tables.grants }))
    const status = Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === index.indexName)
    if (status?.IndexStatus === 'ACTIVE') return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A grant as the release before the slots wrote it: no `programSlot`. */
const oldGrant = (programId: string, issuer: string, n: number) => ({
  grantId: newId('grant'),
  programId,
  issuerId: issuer,
  mode: 'TEST',
  recipient: { email: 'ann@example.com' },
  reason: 'Before the slots',
  amount: 1,
  status: 'reserved',
  createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, n)).toISOString(),
  requestHash: 'a'.repeat(64),
})

describe('grant backfill-slots', () => {
  it('gives grants written before byProgramSlot their slot, once, and says how many', async () => {
    const program = (
      await json('program', 'create', '--issuer', issuerId, '--mode', 'TEST', '--name', 'Old')
    ).programId
    const old = Array.from({ length: 3 }, (_, n) => oldGrant(program, issuerId, n))
    for (const Item of old) await client.send(new PutCommand({ TableName: tables.grants, Item }))
    expect((await json('grant', 'list', '--program', program)).grants).toEqual([])

    const first = await cli('grant', 'backfill-slots')
    expect(first).toMatchObject({ code: 0, err: [] })
    expect(first.out).toMatch(
      /^Updated 3 grants with their listing slot \(0 had one by then; \d+ items scanned\)\.$/,
    )
    const listed = await json('grant', 'list', '--program', program)
    expect(listed.grants.map((g: { id: string }) => g.id)).toEqual(
      old.map((g) => g.grantId).reverse(),
    )
    // The slot is the index's business, never shown.
    expect(JSON.stringify(listed)).not.toContain(`${program}#`)
    expect((await cli('grant', 'list', '--program', program, '--format', 'csv')).out).not.toContain(
      `${program}#`,
    )
    expect(await json('grant', 'backfill-slots')).toMatchObject({ updated: 0, alreadySet: 0 })
  })
})

describe('IAM for the admin CLI (functions/stores/admin-access.ts)', () => {
  it('is exactly what every command sends, per table and index', async () => {
    const tableKey = new Map(Object.entries(tables).map(([key, name]) => [name, key]))
    const used = new Set<string>()
    const record = (table: unknown, action: string, index?: unknown) =>
      used.add(
        `${tableKey.get(table as string) ?? `?${table}`}${index ? `/index/${index}` : ''} ${action}`,
      )
    const stop = intercept(async (name, input, next) => {
      const action = name.replace(/Command$/, '')
      if (action === 'TransactWriteItems') {
        for (const item of input.TransactItems as Record<string, { TableName: string }>[]) {
          for (const [kind, body] of Object.entries(item)) {
            record(body.TableName, kind === 'ConditionCheck' ? 'ConditionCheckItem' : `${kind}Item`)
          }
        }
      } else if (action === 'BatchGetItem') {
        for (const table of Object.keys(input.RequestItems as object)) record(table, action)
      } else {
        record(input.TableName, action, input.IndexName)
      }
      return next()
    })
    const legacy = await legacyKey(issuerId)
    // A stage between the two deploys of the slots upgrade still has `byProgram`, and its stack
    // tells `grant list --stack` to read it (the GrantsListIndex output).
    await addLegacyGrantsIndex()
    // ...and a grant from before the slots, for `grant backfill-slots` to update.
    await documentClient.send(
      new PutCommand({ TableName: tables.grants, Item: oldGrant(programId, issuerId, 0) }),
    )
    const onUpgradingStage = new DynamoDbAdminStore(client, tables, {
      grantListIndex: INDEX.grantsByProgram,
    })
    try {
      const issuer = (await json('issuer', 'create', '--name', 'IAM')).issuerId
      await json('issuer', 'list')
      const program = (
        await json(
          'program',
          'create',
          '--issuer',
          issuer,
          '--mode',
          'TEST',
          '--name',
          'P',
          '--pool',
          '5',
        )
      ).programId
      await json('program', 'list')
      await json('program', 'list', '--issuer', issuer, '--mode', 'TEST')
      await json('program', 'show', program)
      for (const action of ['pause', 'resume', 'close']) await json('program', action, program)
      const key = await json(
        'key',
        'create',
        '--issuer',
        issuer,
        '--mode',
        'TEST',
        '--expires-in',
        '90d',
      )
      await json('key', 'list')
      await json('key', 'list', '--issuer', issuer)
      const rolled = await json('key', 'roll', key.keyId)
      await json('key', 'revoke', rolled.keyId)
      await json('key', 'revoke', legacy.keyId)
      await json('grant', 'list', '--program', program, '--recipient', 'a@example.com')
      // `grant show` and `grant cancel` (here of a canceled grant: its read only; the change's
      // writes, grants and programs UpdateItem and the audit PutItem, are other commands' too).
      const canceled = { ...oldGrant(program, issuer, 1), status: 'canceled' }
      await documentClient.send(new PutCommand({ TableName: tables.grants, Item: canceled }))
      await json('grant', 'show', canceled.grantId)
      await json('grant', 'cancel', canceled.grantId)
      await onUpgradingStage.listGrants({ programId: program, limit: 5 })
      await json('grant', 'backfill-slots')
    } finally {
      stop()
    }
    expect([...used].sort()).toEqual(adminAccessLines())
  })

  it('calls CloudFormation only for DescribeStacks', () => {
    const source = readFileSync(resolve(__dirname, '../../cli/targets.ts'), 'utf8')
    const commands = [...source.matchAll(/\b(\w+)Command\b/g)].map((m) => m[1] as string)
    expect([...new Set(commands)].map((c) => `cloudformation:${c}`)).toEqual([
      ...ADMIN_OTHER_ACCESS,
    ])
  })
})
