import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb'
import { parseCommand } from '../../cli/admin-cli'
import { CHECK_BOUND_MS } from '../../functions/core/access-cache'
import { DEFAULT_RATE_LIMITS, MAX_RATE_LIMIT } from '../../functions/domain/rate-limit'
import type { AdminTableNames } from '../../functions/stores/admin.store'
import { tableNames } from '../../functions/table-schema'
import { ensureTables } from '../../local/tables'
import { auditLog } from '../manage/grants-support'
import { type CliResult, runAdmin } from '../support/admin-run'
import {
  adminTables,
  advanceCheckClock,
  grantBody,
  newIssuer,
  postGrant,
  programState,
  request,
  startApi,
} from '../support/api'
import { config, documentClient, dynamodb, wallClock } from '../support/runtime'

/**
 * The admin CLI as an operator runs it, in this process through its entry module (cli/main.ts,
 * which bin/admin.ts runs; test/cli/admin-binary.test.ts runs the binary itself), on the local
 * target recorded by `npm start` (here: the test run's DynamoDB Local), and then real HTTP calls
 * to the API with what it printed.
 */

/** A folder like `.local/` of a running `npm start`, pointing at the given tables. */
const localDirFor = (tables: AdminTableNames) => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-admin-'))
  writeFileSync(
    join(dir, 'dynamodb-endpoint.json'),
    JSON.stringify({ endpoint: config.dynamodbEndpoint, tables }),
  )
  return dir
}
// The tables the in-process API reads, so it sees what the CLI creates.
const localDir = localDirFor(adminTables)

const cli = (args: string[], dir = localDir): Promise<CliResult> => runAdmin(args, dir)
const json = async (args: string[], dir = localDir) => {
  const result = await cli([...args, '--json'], dir)
  if (result.code !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

const counts = async (tables: AdminTableNames) => {
  const count = async (table: string) =>
    (
      await documentClient.send(
        new ScanCommand({ TableName: table, Select: 'COUNT', ConsistentRead: true }),
      )
    ).Count
  return {
    issuers: await count(tables.issuers),
    programs: await count(tables.programs),
    keys: await count(tables.apiKeys),
    grants: await count(tables.grants),
  }
}

let api: Awaited<ReturnType<typeof startApi>>
beforeAll(async () => {
  api = await startApi()
})
afterAll(() => api.close())

describe('admin CLI walkthrough', () => {
  it('issuer, LIVE program, LIVE key, grant, list grants, revoke: the key is refused within the check bound', async () => {
    const issuer = await json(['issuer', 'create', '--name', 'Acme Corp'])
    expect(issuer).toMatchObject({ issuerId: expect.stringMatching(/^iss_/), name: 'Acme Corp' })
    const listed = await cli(['issuer', 'list'])
    // The error line, if any, says why (the run's tables are shared by every test file).
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' })
    expect(listed.stdout).toMatch(new RegExp(`${issuer.issuerId}\\s+Acme Corp`))

    const program = await json([
      'program',
      'create',
      '--issuer',
      issuer.issuerId,
      '--mode',
      'LIVE',
      '--name',
      'Referrals',
      '--pool',
      '10',
    ])
    expect(program).toMatchObject({ mode: 'LIVE', status: 'active', pool: 10, issued: 0 })

    const created = await cli(['key', 'create', '--issuer', issuer.issuerId, '--mode', 'LIVE'])
    expect(created.code).toBe(0)
    expect(created.stderr).toContain('shown once and cannot be shown again')
    const secret = created.stdout.trim().split('\n').at(-1) as string
    expect(secret).toMatch(/^vs_live_/)

    const grants = [3, 2]
    for (const amount of grants) {
      const recipient = {
        email: `r${amount}@example.com`,
        ...(amount === 3 ? { name: 'Ann' } : {}),
      }
      const call = await postGrant(
        api.baseUrl,
        program.programId,
        secret,
        grantBody({ amount, recipient }),
      )
      expect(call.status).toBe(201)
    }
    const shown = await json(['program', 'show', program.programId])
    expect(shown).toMatchObject({ issued: 5, pool: 10, remaining: 5, status: 'active' })
    expect(shown.issued).toBe(
      (await programState(program.programId)).grants.reduce((a, g) => a + g.amount, 0),
    )
    expect((await cli(['program', 'show', program.programId])).stdout).toMatch(/remaining\s+5/)

    const listedGrants = await json(['grant', 'list', '--program', program.programId])
    expect(listedGrants.grants.map((g: { amount: number }) => g.amount)).toEqual([2, 3])
    // As the grant API's resource: amount a JSON number, no name when the grant has none.
    expect(listedGrants.grants[0]).not.toHaveProperty('name')
    expect(listedGrants.grants[1]).toMatchObject({
      amount: 3,
      name: 'Ann',
      email: 'r3@example.com',
    })
    const asCsv = await cli(['grant', 'list', '--program', program.programId, '--format', 'csv'])
    expect(asCsv.stdout.split('\n')[0]).toBe(
      '"id","createdAt","email","name","amount","reason","status"',
    )
    expect(asCsv.stdout).toContain('"r2@example.com","","2","Referral bonus","reserved"')
    expect((await cli(['grant', 'list', '--program', program.programId])).stdout).toMatch(
      /^ID\s+CREATED\s+EMAIL/,
    )

    // Each key has a pointer item beside it (keyId -> keyHash); no listing shows one.
    const everyKey = (await json(['key', 'list'])) as { keyId?: string }[]
    expect(everyKey.length).toBeGreaterThan(0)
    expect(everyKey.every((k) => /^key_/.test(k.keyId ?? ''))).toBe(true)
    expect((await cli(['key', 'list'])).stdout).not.toMatch(/keyId#|undefined/)
    const keys = await cli(['key', 'list', '--issuer', issuer.issuerId])
    expect(keys.stdout).not.toContain(secret)
    expect(keys.stdout).toContain(`vs_live_…${secret.slice(-4)}`)
    const [key] = await json(['key', 'list', '--issuer', issuer.issuerId])
    expect(JSON.stringify(key)).not.toContain(secret.slice(8, -4))

    expect((await cli(['key', 'revoke', key.keyId])).code).toBe(0)
    // Every instance re-reads a key it checked CHECK_BOUND_MS ago (functions/core/access-cache.ts).
    advanceCheckClock(CHECK_BOUND_MS)
    const refused = await postGrant(api.baseUrl, program.programId, secret)
    expect(refused.status).toBe(401)
    expect((await json(['key', 'list', '--issuer', issuer.issuerId]))[0].status).toBe('revoked')
  })

  it('rolls a key: the old secret works through the grace period and fails after it', async () => {
    const issuer = await json(['issuer', 'create', '--name', 'Roller'])
    const program = await json([
      'program',
      'create',
      '--issuer',
      issuer.issuerId,
      '--mode',
      'TEST',
      '--name',
      'P',
    ])
    const old = await json(['key', 'create', '--issuer', issuer.issuerId, '--mode', 'test'])
    expect((await postGrant(api.baseUrl, program.programId, old.secret)).status).toBe(201)

    const rolled = await json(['key', 'roll', old.keyId, '--grace', '24h'])
    advanceCheckClock(CHECK_BOUND_MS) // the old key's new expiry is read
    expect(rolled.secret).toMatch(/^vs_test_/)
    expect(rolled.old.keyId).toBe(old.keyId)
    expect(Date.parse(rolled.old.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3_600_000)

    expect((await postGrant(api.baseUrl, program.programId, old.secret)).status).toBe(201)
    expect((await postGrant(api.baseUrl, program.programId, rolled.secret)).status).toBe(201)
    try {
      // The service's clock, 25 hours on: past the grace period, with the old key still cached.
      wallClock.advance(25 * 3_600_000)
      expect((await postGrant(api.baseUrl, program.programId, old.secret)).status).toBe(401)
      expect((await postGrant(api.baseUrl, program.programId, rolled.secret)).status).toBe(201)
    } finally {
      wallClock.reset()
    }
    const again = await cli(['key', 'roll', old.keyId, '--grace', '0'])
    expect(again.code).toBe(0)
    advanceCheckClock(CHECK_BOUND_MS)
    expect((await postGrant(api.baseUrl, program.programId, old.secret)).status).toBe(401)
  })

  it('pauses, resumes and closes a program; grants follow its status', async () => {
    const issuer = await json(['issuer', 'create', '--name', 'Pauser'])
    const program = await json([
      'program',
      'create',
      '--issuer',
      issuer.issuerId,
      '--mode',
      'TEST',
      '--name',
      'P',
    ])
    const key = await json(['key', 'create', '--issuer', issuer.issuerId, '--mode', 'TEST'])
    expect((await cli(['program', 'pause', program.programId])).stdout).toContain('is now paused')
    advanceCheckClock(CHECK_BOUND_MS)
    expect((await postGrant(api.baseUrl, program.programId, key.secret)).body.code).toBe(
      'program_inactive',
    )
    expect((await cli(['program', 'resume', program.programId])).code).toBe(0)
    advanceCheckClock(CHECK_BOUND_MS)
    expect((await postGrant(api.baseUrl, program.programId, key.secret)).status).toBe(201)
    expect((await cli(['program', 'close', program.programId])).code).toBe(0)
    advanceCheckClock(CHECK_BOUND_MS)
    expect((await postGrant(api.baseUrl, program.programId, key.secret)).body.code).toBe(
      'program_inactive',
    )
    const reopen = await cli(['program', 'resume', program.programId])
    expect(reopen.code).toBe(1)
    expect(reopen.stderr.trim()).toBe(
      `error: Program ${program.programId} is closed; closing is final.`,
    )
    const listed = await json(['program', 'list', '--issuer', issuer.issuerId, '--mode', 'TEST'])
    expect(listed.map((p: { status: string }) => p.status)).toEqual(['closed'])
  })

  it("sets a key's rate limit, any from 1 to the maximum, and back to the default; audited", async () => {
    const issuer = await json(['issuer', 'create', '--name', 'Limiter'])
    const key = await json(['key', 'create', '--issuer', issuer.issuerId, '--mode', 'TEST'])
    expect(key).toMatchObject({ rateLimit: DEFAULT_RATE_LIMITS.TEST, rateLimitIsDefault: true })
    const raised = await cli(['key', 'limit', key.keyId, '500'])
    expect({ code: raised.code, stderr: raised.stderr }).toEqual({ code: 0, stderr: '' })
    expect(raised.stdout.trim()).toBe(
      `Key ${key.keyId} (vs_test_…${key.last4}) now allows 500 requests a second.`,
    )
    const [listed] = await json(['key', 'list', '--issuer', issuer.issuerId])
    expect(listed).toMatchObject({ keyId: key.keyId, rateLimit: 500, rateLimitIsDefault: false })
    expect((await json(['key', 'limit', key.keyId, String(MAX_RATE_LIMIT)])).rateLimit).toBe(
      MAX_RATE_LIMIT,
    )
    expect(await json(['key', 'limit', key.keyId, 'default'])).toMatchObject({
      rateLimit: DEFAULT_RATE_LIMITS.TEST,
      rateLimitIsDefault: true,
    })
    const table = (await cli(['key', 'list', '--issuer', issuer.issuerId])).stdout
    expect(table.trim()).toMatch(/LIMIT\/S\n.*\s25 \(default\)$/)
    const entries = (await auditLog(issuer.issuerId)).filter((e) => e.action === 'key.rate_limit')
    expect(entries.map((e) => [e.actor.kind, e.details])).toEqual([
      ['operator', { from: 25, to: 500, fromDefault: true, toDefault: false }],
      ['operator', { from: 500, to: MAX_RATE_LIMIT, fromDefault: false, toDefault: false }],
      ['operator', { from: MAX_RATE_LIMIT, to: 25, fromDefault: false, toDefault: true }],
    ])
  })

  it('pages through grants newest first and filters by recipient', async () => {
    const issuer = await json(['issuer', 'create', '--name', 'Pager'])
    const program = await json([
      'program',
      'create',
      '--issuer',
      issuer.issuerId,
      '--mode',
      'TEST',
      '--name',
      'P',
    ])
    const key = await json(['key', 'create', '--issuer', issuer.issuerId, '--mode', 'TEST'])
    for (let i = 1; i <= 5; i++) {
      const email = i % 2 === 0 ? 'even@example.com' : 'odd@example.com'
      await postGrant(
        api.baseUrl,
        program.programId,
        key.secret,
        grantBody({ amount: i, recipient: { email } }),
      )
      // The next createdAt 5 ms later on the functions' clock: newest first is a strict order.
      wallClock.advance(5)
    }
    const first = await json(['grant', 'list', '--program', program.programId, '--limit', '2'])
    expect(first.grants.map((g: { amount: number }) => g.amount)).toEqual([5, 4])
    const second = await json([
      'grant',
      'list',
      '--program',
      program.programId,
      '--limit',
      '2',
      '--cursor',
      first.nextCursor,
    ])
    expect(second.grants.map((g: { amount: number }) => g.amount)).toEqual([3, 2])
    const third = await json([
      'grant',
      'list',
      '--program',
      program.programId,
      '--limit',
      '2',
      '--cursor',
      second.nextCursor,
    ])
    expect(third.grants.map((g: { amount: number }) => g.amount)).toEqual([1])
    const even = await json([
      'grant',
      'list',
      '--program',
      program.programId,
      '--recipient',
      'EVEN@example.com',
    ])
    expect(even.grants.map((g: { amount: number }) => g.amount)).toEqual([4, 2])
    const table = await cli(['grant', 'list', '--program', program.programId, '--limit', '2'])
    expect(table.stderr).toMatch(/More grants: add --cursor \S+/)
  })
})

describe("admin CLI: a grant's life (grant show, grant cancel)", () => {
  it('shows the history, cancels as the operator (audited, shares back), and again changes nothing', async () => {
    const issuer = await newIssuer({ pool: 20 })
    const made = await postGrant(
      api.baseUrl,
      issuer.programs.TEST,
      issuer.keys.TEST,
      grantBody({ amount: 4, recipient: { email: 'cli@example.com', name: 'Cli' } }),
    )
    expect(made.status).toBe(201)
    const id = made.body.id as string

    const shown = await cli(['grant', 'show', id])
    expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: '' })
    expect(shown.stdout).toMatch(new RegExp(`^id\\s+${id}$`, 'm'))
    expect(shown.stdout).toMatch(/^status\s+reserved$/m)
    expect(shown.stdout).toMatch(/^recipient\s+cli@example\.com \(Cli\)$/m)
    expect(shown.stdout).toContain('(none)')

    const before = await programState(issuer.programs.TEST)
    const canceled = await cli(['grant', 'cancel', id])
    expect({ code: canceled.code, stderr: canceled.stderr }).toEqual({ code: 0, stderr: '' })
    expect(canceled.stdout.trim()).toBe(`Canceled ${id}: 4 shares back to ${issuer.programs.TEST}.`)
    const after = await programState(issuer.programs.TEST)
    expect(after.issued).toBe(before.issued - 4)
    const audit = (await auditLog(issuer.issuerId)).filter((e) => e.action === 'grant.cancel')
    expect(audit).toEqual([
      expect.objectContaining({
        actor: { kind: 'operator', label: 'operator CLI' },
        target: { type: 'grant', id },
      }),
    ])

    // The history, as JSON: the operator's transition.
    const asJson = await json(['grant', 'show', id])
    expect(asJson).toMatchObject({ id, status: 'canceled', amount: 4, delivery: 'pending' })
    expect(asJson.history).toEqual([
      { at: expect.any(String), event: 'transition', state: 'canceled', actor: 'operator' },
    ])
    expect(JSON.stringify(asJson)).not.toMatch(/requestHash|offer-token|tokens/)
    expect((await cli(['grant', 'show', id])).stdout).toMatch(
      /^\S+Z\s+transition\s+canceled\s+operator$/m,
    )

    // Again: nothing written, said so.
    const again = await cli(['grant', 'cancel', id])
    expect(again.stdout.trim()).toBe(`${id} was already canceled; nothing changed.`)
    expect((await programState(issuer.programs.TEST)).issued).toBe(after.issued)
    expect(
      (await auditLog(issuer.issuerId)).filter((e) => e.action === 'grant.cancel'),
    ).toHaveLength(1)
  })

  it('refuses in one line, exit 1, writing nothing: an accepted grant, a bad id, a missing grant', async () => {
    const issuer = await newIssuer({ pool: 20 })
    const made = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, grantBody())
    const id = made.body.id as string
    const accepted = await request(
      api.baseUrl,
      'POST',
      `/programs/${issuer.programs.TEST}/grants/${id}/test-transition`,
      {
        headers: { 'x-api-key': issuer.keys.TEST, 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'accepted' }),
      },
    )
    expect(accepted.status).toBe(200)
    const before = await programState(issuer.programs.TEST)
    for (const [args, line] of [
      [
        ['grant', 'cancel', id],
        `error: Grant ${id} was accepted by its recipient; an accepted grant is final.`,
      ],
      [['grant', 'cancel', 'gr_nope'], 'error: Grant "gr_nope" is not a valid id.'],
      [['grant', 'show', 'nope'], 'error: Grant "nope" is not a valid id.'],
      [['grant', 'show', `gr_${'0'.repeat(26)}`], `error: No grant gr_${'0'.repeat(26)}.`],
      [
        ['grant', 'cancel'],
        'error: "grant cancel" needs exactly one <grantId> (usage: grant cancel <grantId>).',
      ],
    ] as const) {
      const result = await cli([...args])
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr: `${line}\n`,
      })
    }
    const after = await programState(issuer.programs.TEST)
    expect(after.grants).toEqual(before.grants)
    expect(after.issued).toBe(before.issued)
    expect((await auditLog(issuer.issuerId)).filter((e) => e.action.startsWith('grant.'))).toEqual(
      [],
    )
  })
})

describe('admin CLI bad input', () => {
  // Tables of its own, so "changes nothing" can be checked on whole tables while other test
  // files write to the shared ones.
  const suffix = `cli-${process.pid}`
  const tables: AdminTableNames = tableNames('vs', `-${suffix}`)
  const dir = localDirFor(tables)
  let issuerId: string
  beforeAll(async () => {
    await ensureTables(dynamodb, tables)
    issuerId = (await json(['issuer', 'create', '--name', 'Bad input'], dir)).issuerId
  })

  it.each([
    [
      ['program', 'create', '--issuer', 'ISSUER', '--mode', 'FOO', '--name', 'x'],
      '--mode must be TEST or LIVE, got "FOO".',
    ],
    [
      ['program', 'create', '--issuer', 'ISSUER', '--mode', 'TEST', '--name', 'x', '--pool=-5'],
      '--pool must be a whole number from 1 to 1000000000000, got "-5".',
    ],
    [
      ['program', 'create', '--issuer', 'ISSUER', '--mode', 'TEST', '--name', 'x', '--pool', '2.5'],
      '--pool must be a whole number',
    ],
    [
      [
        'program',
        'create',
        '--issuer',
        'iss_00000000000000000000000000',
        '--mode',
        'TEST',
        '--name',
        'x',
      ],
      'No issuer iss_00000000000000000000000000.',
    ],
    [
      ['program', 'create', '--issuer', 'ISSUER', '--mode', 'TEST'],
      '--name must be 1 to 100 characters',
    ],
    [
      ['key', 'create', '--issuer', 'ISSUER', '--mode', 'LIVE', '--expires-in', '9x'],
      '--expires-in must be a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got "9x".',
    ],
    [['key', 'create', '--issuer', 'nope', '--mode', 'LIVE'], 'Issuer "nope" is not a valid id.'],
    [['key', 'revoke', 'key_00000000000000000000000000'], 'No key key_00000000000000000000000000.'],
    [
      ['key', 'roll', 'key_00000000000000000000000000', '--grace', '1y'],
      '--grace must be 0 (none) or a duration from 1s to 3650d',
    ],
    [
      ['program', 'pause', 'prg_00000000000000000000000000'],
      'No program prg_00000000000000000000000000.',
    ],
    [['program', 'show'], '"program show" needs exactly one <programId>'],
    [
      ['grant', 'list', '--program', 'prg_00000000000000000000000000', '--limit', '0'],
      '--limit must be a whole number from 1 to 1000',
    ],
    [
      ['grant', 'list', '--program', 'prg_00000000000000000000000000', '--format', 'xml'],
      '--format must be table, json or csv',
    ],
    [
      ['grant', 'list', '--program', 'prg_00000000000000000000000000'],
      'No program prg_00000000000000000000000000.',
    ],
    // Negative values reach the validators (node's parseArgs alone calls them "ambiguous").
    [
      ['program', 'create', '--issuer', 'ISSUER', '--mode', 'TEST', '--name', 'x', '--pool', '-1'],
      '--pool must be a whole number from 1 to 1000000000000, got "-1".',
    ],
    [
      ['key', 'create', '--issuer', 'ISSUER', '--mode', 'LIVE', '--expires-in', '-5d'],
      '--expires-in must be a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got "-5d".',
    ],
    [
      ['key', 'create', '--issuer', 'ISSUER', '--mode', 'LIVE', '--expires-in', '0'],
      '--expires-in must be a duration from 1s to 3650d',
    ],
    [
      ['key', 'roll', 'key_00000000000000000000000000', '--grace', '-5h'],
      '--grace must be 0 (none) or a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got "-5h".',
    ],
    [
      ['grant', 'list', '--program', 'prg_00000000000000000000000000', '--limit', '-1'],
      '--limit must be a whole number from 1 to 1000, got "-1".',
    ],
    [['program', 'list', '--mode', '-1'], '--mode must be TEST or LIVE, got "-1".'],
    [['key', 'frob'], 'Unknown command "key frob". key takes: create, list, revoke, roll, limit.'],
    [['issuer', 'list', '--pool', '3'], '"issuer list" does not take --pool'],
    [['issuer', 'create', '--nmae', 'x'], "Unknown option '--nmae'"],
    // Bidirectional controls reorder what follows them: "\u202Egnp.exe" shows as exe.png.
    [
      ['issuer', 'create', '--name', 'Acme\u202Egnp.exe'],
      '--name must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069).',
    ],
    [
      ['program', 'create', '--issuer', 'ISSUER', '--mode', 'TEST', '--name', '\u2067Spring'],
      '--name must not contain bidirectional control characters',
    ],
  ])('%j fails with one clear line and changes nothing', async (args, message) => {
    const before = await counts(tables)
    const result = await cli(
      args.map((a) => (a === 'ISSUER' ? issuerId : a)),
      dir,
    )
    expect(result.code).toBe(1)
    const lines = result.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^error: /)
    expect(lines[0]).toContain(message)
    expect(result.stdout).toBe('')
    expect(await counts(tables)).toEqual(before)
    expect(before.issuers).toBe(1)
  })

  it('refuses a bad key limit with one line, writing nothing', async () => {
    const key = await json(['key', 'create', '--issuer', issuerId, '--mode', 'TEST'], dir)
    const state = async () => ({
      keys: await json(['key', 'list', '--issuer', issuerId], dir),
      // The audit table is this describe's own: any entry written would count.
      audit: await documentClient
        .send(new ScanCommand({ TableName: tables.audit, ConsistentRead: true }))
        .then((r) => r.Count),
    })
    const before = await state()
    for (const [args, message] of [
      [
        [key.keyId, '0'],
        `The limit must be a whole number from 1 to ${MAX_RATE_LIMIT}, or default, got "0".`,
      ],
      [[key.keyId, String(MAX_RATE_LIMIT + 1)], `or default, got "${MAX_RATE_LIMIT + 1}".`],
      [[key.keyId, 'fast'], 'or default, got "fast".'],
      [[key.keyId, '2.5'], 'or default, got "2.5".'],
      [[key.keyId], '"key limit" needs <keyId> and <n|default>'],
      [['key_00000000000000000000000000', '5'], 'No key key_00000000000000000000000000.'],
      [['nope', '5'], 'Key "nope" is not a valid id.'],
    ] as [string[], string][]) {
      const result = await cli(['key', 'limit', ...args], dir)
      expect(result.code).toBe(1)
      expect(result.stdout).toBe('')
      const lines = result.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/^error: /)
      expect(lines[0]).toContain(message)
    }
    expect(await state()).toEqual(before)
  })

  it('says the local database is not running, and how to start it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vs-admin-empty-'))
    const result = await cli(['issuer', 'list'], empty)
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toMatch(
      /^error: The local database is not running: .* Start it with `npm start`/,
    )
    const stale = mkdtempSync(join(tmpdir(), 'vs-admin-stale-'))
    writeFileSync(
      join(stale, 'dynamodb-endpoint.json'),
      JSON.stringify({ endpoint: 'http://127.0.0.1:9', tables: adminTables }),
    )
    expect((await cli(['issuer', 'list'], stale)).stderr).toMatch(
      /does not answer\. Start it with `npm start`/,
    )
  })

  it('has --help for every command', async () => {
    const top = await cli(['--help'])
    expect(top.code).toBe(0)
    const commands = [...top.stdout.matchAll(/^ {2}(\w+ [\w-]+)/gm)].map((m) => m[1] as string)
    // issuer 2, program 6, key 5, grant 4, member 5.
    expect(commands).toHaveLength(22)
    // One command's help through the entry module; the others' is the same code path.
    expect((await cli(['key', 'roll', '--help'])).stdout).toContain(
      'Usage: npm run admin -- key roll <keyId> [--grace 24h]',
    )
    for (const command of commands) {
      const help = parseCommand([...command.split(' '), '--help'])
      expect(help.kind === 'help' && help.text).toContain(`Usage: npm run admin -- ${command}`)
    }
  })

  it.each([
    ['issuer', 2],
    ['program', 6],
    ['key', 5],
    ['grant', 4],
    ['member', 5],
  ])('"%s --help" prints the help of its %i commands and exits 0', async (noun, count) => {
    const help = await cli([noun, '--help'])
    expect(help.code).toBe(0)
    expect(help.stderr).toBe('')
    expect(help.stdout).toContain(`Usage: npm run admin -- ${noun} <verb> [options]`)
    const listed = [...help.stdout.matchAll(/^ {2}(\w+) [\w-]+/gm)].map((m) => m[1])
    expect(listed).toEqual(Array(count).fill(noun))
    expect(help.stdout).toContain('--stack <name>')
  })
})

describe('admin CLI output of names stored before the bidirectional-control rule', () => {
  const tables: AdminTableNames = tableNames('vs', `-cli-bidi-${process.pid}`)
  const dir = localDirFor(tables)
  beforeAll(() => ensureTables(dynamodb, tables))

  it('writes their controls out, so they cannot reorder the rest of a terminal line', async () => {
    await documentClient.send(
      new PutCommand({
        TableName: tables.issuers,
        Item: {
          issuerId: 'iss_00000000000000000000000bid',
          name: 'Old\u202Egnp.exe',
          createdAt: '2020-01-01T00:00:00.000Z',
        },
      }),
    )
    const listed = await cli(['issuer', 'list'], dir)
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain('Old\\u202Egnp.exe')
    expect(listed.stdout).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/)
    // --json keeps the stored value as it is, for programs to read.
    expect((await json(['issuer', 'list'], dir))[0].name).toBe('Old\u202Egnp.exe')
  })
})
