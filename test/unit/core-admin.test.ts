import { cliMessage } from '../../cli/messages'
import { makeAdmin } from '../../functions/core/admin'
import {
  CURSOR_RULE,
  InvalidId,
  InvalidInput,
  NotFound,
  StateConflict,
  WriteConflictError,
} from '../../functions/domain/admin-errors'
import { hashApiKey } from '../../functions/domain/api-key'
import { encodeAuditCursor } from '../../functions/domain/audit-entry'
import { encodeGrantCursor, type GrantRecord } from '../../functions/domain/grant'
import { newId } from '../../functions/domain/ids'
import type { Actor } from '../../functions/domain/people'
import { problemResponse } from '../../functions/http/problem'
import { busy, throttled } from '../../functions/stores/store-errors'
import { FakeAdminStore } from '../support/fake-admin-store'

/**
 * The admin use cases (functions/core/admin.ts) in process, against an AdminStore in memory
 * (test/support/fake-admin-store.ts) and an injected clock: the rules of programs, keys, modes
 * and paging, what each writes (the change and its audit entry, or nothing), and how each refusal
 * reads at both doors (problem.ts's code, cli/messages.ts's line). The same use cases on DynamoDB
 * Local: test/cli/admin-in-process.test.ts and test/manage/programs-keys.manage.test.ts.
 */

const START = Date.parse('2026-03-01T12:00:00.000Z')
const HOUR = 3_600_000
const ALICE: Actor = { kind: 'person', sub: 'sub-alice', email: 'alice@example.com' }

const setup = (who?: { actor: Actor; requestId?: string }) => {
  const store = new FakeAdminStore()
  let now = START
  const admin = makeAdmin(store, () => now, who)
  return {
    store,
    admin,
    advance: (ms: number) => {
      now += ms
    },
    now: () => now,
  }
}

/** What a rejected promise was rejected with. */
const refusal = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected the use case to refuse')
    },
    (error: unknown) => error,
  )

/** The answer a management route gives for it. */
const api = (error: unknown) => {
  const { problem } = problemResponse(error, 'req-1')
  return problem
}

/** The state the store holds, to prove that a refusal wrote nothing. */
const snapshot = (store: FakeAdminStore) => ({
  programs: structuredClone([...store.state.programs.values()]),
  keys: structuredClone([...store.state.keys.values()]),
  audit: structuredClone(store.state.audit),
})

const withIssuer = async () => {
  const context = setup()
  const issuer = await context.admin.createIssuer({ name: 'Acme' })
  return { ...context, issuer }
}

describe('programs', () => {
  it('creates an active program with its audit entry, the pool split into shards', async () => {
    const { admin, store, issuer } = await withIssuer()
    const program = await admin.createProgram({
      issuer: issuer.issuerId,
      mode: 'live',
      name: '  Summer  ',
      pool: '1000',
    })
    expect(program).toMatchObject({
      issuerId: issuer.issuerId,
      mode: 'LIVE',
      name: 'Summer',
      status: 'active',
      issued: 0,
      pool: 1000,
      createdAt: new Date(START).toISOString(),
    })
    expect(store.state.programs.get(program.programId)).toEqual(program)
    expect(store.state.audit.at(-1)).toMatchObject({
      issuerId: issuer.issuerId,
      action: 'program.create',
      actor: { kind: 'operator' },
      target: { type: 'program', id: program.programId },
      details: { mode: 'LIVE', name: 'Summer', pool: 1000 },
    })
    expect(await admin.showProgram(program.programId)).toMatchObject({
      pool: 1000,
      remaining: 1000,
    })
  })

  it('names every broken field at once and writes nothing', async () => {
    const { admin, store, issuer } = await withIssuer()
    const before = snapshot(store)
    const error = await refusal(
      admin.createProgram({ issuer: issuer.issuerId, mode: 'PROD', name: ' ', pool: '-3' }),
    )
    expect(error).toBeInstanceOf(InvalidInput)
    expect((error as InvalidInput).problems.map((p) => p.field)).toEqual(['mode', 'name', 'pool'])
    expect(snapshot(store)).toEqual(before)
    expect(api(error)).toMatchObject({
      status: 400,
      code: 'validation_failed',
      errors: [
        { field: 'mode', message: 'mode must be TEST or LIVE, got "PROD"' },
        { field: 'name', message: expect.stringMatching(/^name must be 1 to 100 characters/) },
        { field: 'pool', message: expect.stringMatching(/^pool must be a whole number from 1/) },
      ],
    })
    expect(cliMessage(error)).toMatch(
      /^--mode must be TEST or LIVE, got "PROD"\. --name must be .*\. --pool must be .*\.$/,
    )
  })

  it('refuses an unknown issuer (nothing written) and a malformed id (no read at all)', async () => {
    const { admin, store } = setup()
    const missing = newId('issuer')
    const notFound = await refusal(
      admin.createProgram({ issuer: missing, mode: 'TEST', name: 'x' }),
    )
    expect(notFound).toEqual(new NotFound('issuer', missing))
    expect(store.state.programs.size).toBe(0)
    expect(store.state.audit).toEqual([])
    expect(api(notFound)).toMatchObject({ status: 404, code: 'issuer_not_found' })
    expect(cliMessage(notFound)).toBe(`No issuer ${missing}.`)

    const calls = store.calls.length
    const malformed = await refusal(admin.showProgram('prg_nope'))
    expect(malformed).toBeInstanceOf(InvalidId)
    expect(store.calls.length).toBe(calls)
    expect(cliMessage(malformed)).toBe('Program "prg_nope" is not a valid id.')
    expect(api(malformed)).toMatchObject({ status: 404, code: 'program_not_found' })
  })

  it.each([
    ['pause', 'active', 'paused'],
    ['resume', 'paused', 'active'],
    ['close', 'active', 'closed'],
    ['close', 'paused', 'closed'],
  ] as const)('%s moves a program from %s to %s, audited', async (action, from, to) => {
    const { admin, store, issuer } = await withIssuer()
    const program = await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name: 'P' })
    if (from === 'paused') await admin.changeProgramStatus(program.programId, 'pause')
    const changed = await admin.changeProgramStatus(program.programId, action)
    expect(changed.status).toBe(to)
    expect(store.state.programs.get(program.programId)?.status).toBe(to)
    expect(store.state.audit.at(-1)).toMatchObject({
      action: `program.${action}`,
      target: { type: 'program', id: program.programId },
      details: { from, to },
    })
  })

  it.each([
    ['pause', 'paused', 'Program %s is paused; cannot pause it.'],
    ['resume', 'active', 'Program %s is active; cannot resume it.'],
    ['pause', 'closed', 'Program %s is closed; closing is final.'],
    ['resume', 'closed', 'Program %s is closed; closing is final.'],
    ['close', 'closed', 'Program %s is closed; closing is final.'],
  ] as const)('refuses %s on a %s program and writes nothing', async (action, status, message) => {
    const { admin, store, issuer } = await withIssuer()
    const program = await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name: 'P' })
    if (status === 'paused') await admin.changeProgramStatus(program.programId, 'pause')
    if (status === 'closed') await admin.changeProgramStatus(program.programId, 'close')
    const before = snapshot(store)
    const error = await refusal(admin.changeProgramStatus(program.programId, action))
    expect(error).toBeInstanceOf(StateConflict)
    expect((error as StateConflict).message).toBe(message.replace('%s', program.programId))
    expect(snapshot(store)).toEqual(before)
    expect(api(error)).toMatchObject({
      status: 409,
      code: 'program_state_conflict',
      detail: message.replace('%s', program.programId),
    })
    expect(cliMessage(error)).toBe(message.replace('%s', program.programId))
  })

  it('follows a status that moved between its read and its write, and audits where it was', async () => {
    const { admin, store, issuer } = await withIssuer()
    const program = await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name: 'P' })
    // Someone pauses the program after close read it as active, before close writes.
    store.beforeWrite = (method) => {
      if (method !== 'setProgramStatus') return
      store.beforeWrite = undefined
      const item = store.state.programs.get(program.programId)
      if (item) item.status = 'paused'
    }
    const closed = await admin.changeProgramStatus(program.programId, 'close')
    expect(closed.status).toBe('closed')
    expect(store.state.audit.at(-1)).toMatchObject({ details: { from: 'paused', to: 'closed' } })
    expect(store.calls.filter((c) => c === 'setProgramStatus')).toHaveLength(2)
  })

  it("answers another issuer's program exactly as a missing one, read or changed", async () => {
    const { admin, store, issuer } = await withIssuer()
    const other = await admin.createIssuer({ name: 'Other' })
    const program = await admin.createProgram({ issuer: other.issuerId, mode: 'TEST', name: 'P' })
    const scope = { issuerId: issuer.issuerId }
    const before = snapshot(store)
    for (const work of [
      () => admin.showProgram(program.programId, scope),
      () => admin.changeProgramStatus(program.programId, 'pause', scope),
    ]) {
      expect(await refusal(work())).toEqual(new NotFound('program', program.programId))
    }
    expect(snapshot(store)).toEqual(before)
    expect(api(new NotFound('program', program.programId))).toMatchObject({
      status: 404,
      code: 'program_not_found',
      detail: `No program "${program.programId}" exists in this issuer.`,
    })
  })

  it('lists by mode; a mode that is neither TEST nor LIVE is refused before any read', async () => {
    const { admin, store, issuer } = await withIssuer()
    const test = await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name: 'T' })
    const live = await admin.createProgram({ issuer: issuer.issuerId, mode: 'LIVE', name: 'L' })
    expect((await admin.listPrograms({ mode: 'test' })).map((p) => p.programId)).toEqual([
      test.programId,
    ])
    expect((await admin.listPrograms({ issuer: issuer.issuerId })).map((p) => p.programId)).toEqual(
      [test.programId, live.programId],
    )
    const calls = store.calls.length
    const error = await refusal(admin.listPrograms({ mode: 'SANDBOX' }))
    expect(error).toBeInstanceOf(InvalidInput)
    expect(cliMessage(error)).toBe('--mode must be TEST or LIVE, got "SANDBOX".')
    expect(store.calls.length).toBe(calls)
  })
})

describe('API keys', () => {
  it('creates a key: the secret once, its hash stored, the expiry from the clock', async () => {
    const { admin, store, issuer } = await withIssuer()
    const { secret, record } = await admin.createKey({
      issuer: issuer.issuerId,
      mode: 'TEST',
      expiresIn: '90d',
    })
    expect(secret).toMatch(/^vs_test_/)
    expect(record).toMatchObject({
      keyHash: hashApiKey(secret),
      mode: 'TEST',
      status: 'active',
      createdBy: 'operator CLI',
      expiresAt: START + 90 * 24 * HOUR,
      last4: secret.slice(-4),
    })
    const stored = JSON.stringify([...store.state.keys.values(), ...store.state.audit])
    expect(stored).not.toContain(secret)
    expect(store.state.audit.at(-1)).toMatchObject({
      action: 'key.create',
      details: { mode: 'TEST', expiresAt: new Date(START + 90 * 24 * HOUR).toISOString() },
    })
  })

  it('names the person who created it, and refuses a zero lifetime as --expires-in', async () => {
    const store = new FakeAdminStore()
    const admin = makeAdmin(store, () => START, { actor: ALICE, requestId: 'req-7' })
    const issuer = await admin.createIssuer({ name: 'Acme' })
    const { record } = await admin.createKey({ issuer: issuer.issuerId, mode: 'LIVE' })
    expect(record.createdBy).toBe('alice@example.com')
    expect(store.state.audit.at(-1)).toMatchObject({ actor: ALICE, requestId: 'req-7' })
    const error = await refusal(
      admin.createKey({ issuer: issuer.issuerId, mode: 'LIVE', expiresIn: '0' }),
    )
    expect(cliMessage(error)).toMatch(/^--expires-in must be a duration from 1s to 3650d/)
    expect(api(error)).toMatchObject({ errors: [{ field: 'expiresIn' }] })
  })

  it('revokes once: the second revoke changes nothing and writes no audit entry', async () => {
    const { admin, store, issuer } = await withIssuer()
    const { record } = await admin.createKey({ issuer: issuer.issuerId, mode: 'TEST' })
    expect((await admin.revokeKey(record.keyId)).state).toBe('revoked')
    const audited = store.state.audit.length
    expect((await admin.revokeKey(record.keyId)).state).toBe('revoked')
    expect(store.state.audit.length).toBe(audited)
    expect(store.state.keys.get(record.keyHash)?.status).toBe('revoked')
  })

  it('rolls: a new key now, the old one until the grace period ends, then expired', async () => {
    const { admin, store, issuer, advance } = await withIssuer()
    const { record } = await admin.createKey({ issuer: issuer.issuerId, mode: 'LIVE' })
    const rolled = await admin.rollKey(record.keyId, '1h')
    expect(rolled.record).toMatchObject({ mode: 'LIVE', status: 'active' })
    expect(rolled.record.keyId).not.toBe(record.keyId)
    expect(rolled.old).toMatchObject({
      keyId: record.keyId,
      state: 'active',
      expiresAt: START + HOUR,
      rolledTo: rolled.record.keyId,
    })
    expect(store.state.keys.get(record.keyHash)).toMatchObject({ expiresAt: START + HOUR })
    expect(store.state.audit.at(-1)).toMatchObject({
      action: 'key.roll',
      details: { newKeyId: rolled.record.keyId },
    })
    advance(HOUR)
    const [old] = (await admin.listKeys({ issuer: issuer.issuerId })).filter(
      (k) => k.keyId === record.keyId,
    )
    expect(old?.state).toBe('expired')
    const error = await refusal(admin.rollKey(record.keyId))
    expect(error).toBeInstanceOf(StateConflict)
    expect(cliMessage(error)).toBe(
      `Key ${record.keyId} is expired; only an active key can be rolled.`,
    )
    expect(api(error)).toMatchObject({ status: 409, code: 'key_state_conflict' })
  })

  it('never extends a key: the grace period ends at its own expiry at the latest', async () => {
    const { admin, issuer } = await withIssuer()
    const { record } = await admin.createKey({
      issuer: issuer.issuerId,
      mode: 'TEST',
      expiresIn: '1h',
    })
    const rolled = await admin.rollKey(record.keyId, '24h')
    expect(rolled.old.expiresAt).toBe(START + HOUR)
    expect(rolled.record.expiresAt).toBe(START + HOUR)
  })

  it('refuses to roll a revoked key, and one revoked between the read and the write', async () => {
    const { admin, store, issuer } = await withIssuer()
    const first = await admin.createKey({ issuer: issuer.issuerId, mode: 'TEST' })
    await admin.revokeKey(first.record.keyId)
    const before = snapshot(store)
    expect(cliMessage(await refusal(admin.rollKey(first.record.keyId)))).toBe(
      `Key ${first.record.keyId} is revoked; only an active key can be rolled.`,
    )
    expect(snapshot(store)).toEqual(before)

    const second = await admin.createKey({ issuer: issuer.issuerId, mode: 'TEST' })
    store.beforeWrite = (method) => {
      if (method !== 'rollApiKey') return
      const item = store.state.keys.get(second.record.keyHash)
      if (item) item.status = 'revoked'
    }
    const raced = await refusal(admin.rollKey(second.record.keyId))
    expect(raced).toBeInstanceOf(StateConflict)
    expect((raced as StateConflict).current).toBe('revoked')
    expect(store.state.keys.size).toBe(2)
  })

  it("answers another issuer's key as a missing one, and a malformed key id as not valid", async () => {
    const { admin, store, issuer } = await withIssuer()
    const other = await admin.createIssuer({ name: 'Other' })
    const { record } = await admin.createKey({ issuer: other.issuerId, mode: 'TEST' })
    const scope = { issuerId: issuer.issuerId }
    for (const work of [
      () => admin.revokeKey(record.keyId, scope),
      () => admin.rollKey(record.keyId, '0', scope),
    ]) {
      const error = await refusal(work())
      expect(error).toEqual(new NotFound('key', record.keyId))
      expect(api(error)).toMatchObject({ status: 404, code: 'key_not_found' })
    }
    expect(store.state.keys.get(record.keyHash)?.status).toBe('active')
    expect(cliMessage(await refusal(admin.revokeKey('key_1')))).toBe(
      'Key "key_1" is not a valid id.',
    )
  })

  it('tells a change that ran out of conflict retries as that change, and the store unavailable as 503', async () => {
    const { admin, store, issuer } = await withIssuer()
    const { record } = await admin.createKey({ issuer: issuer.issuerId, mode: 'TEST' })
    store.failNext('revokeApiKey', busy(4, 400))
    const error = await refusal(admin.revokeKey(record.keyId))
    expect(error).toBeInstanceOf(WriteConflictError)
    expect(cliMessage(error)).toBe(
      `Revoking key ${record.keyId} did NOT take effect: grants in flight kept it busy (DynamoDB transaction conflict, 4 attempts in 0.4 s). Run the command again.`,
    )
    const conflict = problemResponse(error, 'r')
    expect(conflict.problem).toMatchObject({ status: 409, code: 'request_conflict' })
    expect(conflict.response.headers?.['retry-after']).toBe('1')
    expect(store.state.keys.get(record.keyHash)?.status).toBe('active')

    store.failNext('listApiKeys', throttled('reads left unprocessed'))
    const unavailable = await refusal(admin.listKeys({ issuer: issuer.issuerId }))
    expect(api(unavailable)).toMatchObject({ status: 503, code: 'service_unavailable' })
    expect(cliMessage(unavailable)).toBe(
      'DynamoDB throttled the request (reads left unprocessed); nothing was changed. Try again.',
    )
  })
})

describe('paging', () => {
  const grantsOf = (programId: string, issuerId: string, count: number): GrantRecord[] =>
    Array.from({ length: count }, (_, i) => ({
      grantId: newId('grant'),
      programId,
      issuerId,
      mode: 'TEST',
      recipient: { email: i % 2 === 0 ? 'ann@example.com' : 'bob@example.com' },
      reason: 'r',
      amount: 1,
      status: 'reserved',
      // Three grants share each millisecond: the cursor's grant id orders ties.
      createdAt: new Date(START + Math.floor(i / 3)).toISOString(),
      requestHash: 'h',
    }))

  it("pages a program's grants with the cursors it hands out, newest first", async () => {
    const { admin, store, issuer } = await withIssuer()
    const program = await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name: 'P' })
    store.state.grants.push(...grantsOf(program.programId, issuer.issuerId, 11))
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await admin.listGrants({
        program: program.programId,
        limit: '4',
        ...(cursor === undefined ? {} : { cursor }),
      })
      seen.push(...page.items.map((g) => g.grantId))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    const expected = [...store.state.grants]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.grantId.localeCompare(a.grantId))
      .map((g) => g.grantId)
    expect(seen).toEqual(expected)
    const bob = await admin.listGrants({
      program: program.programId,
      recipient: ' BOB@example.com ',
    })
    expect(bob.items.map((g) => g.recipient.email)).toEqual(Array(5).fill('bob@example.com'))
  })

  it('refuses a cursor it did not hand out before any read, with every other broken field', async () => {
    const { admin, store, issuer } = await withIssuer()
    const program = await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name: 'P' })
    const calls = store.calls.length
    const forged = Buffer.from('2026-03-01T12:00:00.000Z gr_x', 'utf8').toString('base64url')
    for (const cursor of [
      'e30',
      forged,
      `${encodeGrantCursor({ createdAt: new Date(START).toISOString(), grantId: newId('grant') })}=`,
    ]) {
      const error = await refusal(admin.listGrants({ program: program.programId, cursor }))
      expect(error).toEqual(new InvalidInput([{ field: 'cursor', rule: CURSOR_RULE }]))
      expect(cliMessage(error)).toBe('The --cursor value is not one this command printed.')
    }
    const both = await refusal(
      admin.listGrants({ program: program.programId, limit: '0', cursor: 'e30' }),
    )
    expect(cliMessage(both)).toBe(
      '--limit must be a whole number from 1 to 1000, got "0". The --cursor value is not one this command printed.',
    )
    expect(store.calls.length).toBe(calls)
  })

  it('pages the audit log newest first; a page that ends the log has no cursor', async () => {
    const { admin, issuer, advance } = await withIssuer()
    for (const name of ['A', 'B', 'C']) {
      advance(1_000)
      await admin.createProgram({ issuer: issuer.issuerId, mode: 'TEST', name })
    }
    const first = await admin.listAudit({ issuer: issuer.issuerId, limit: 2 })
    expect(first.entries.map((e) => e.details?.name)).toEqual(['C', 'B'])
    expect(first.nextCursor).toEqual(expect.any(String))
    const second = await admin.listAudit({
      issuer: issuer.issuerId,
      limit: 2,
      cursor: first.nextCursor,
    })
    // The issuer's creation, then the end of the log.
    expect(second.entries.map((e) => e.action)).toEqual(['program.create', 'issuer.create'])
    expect(second.nextCursor).toBeNull()
    const exact = await admin.listAudit({ issuer: issuer.issuerId, limit: 4 })
    expect(exact.entries).toHaveLength(4)
    expect(exact.nextCursor).toBeNull()
  })

  it('refuses an audit cursor that is not an entry id it encoded, with the limit, as 400', async () => {
    const { admin, store, issuer } = await withIssuer()
    const calls = store.calls.length
    for (const cursor of [
      'not a cursor',
      encodeAuditCursor('2026-03-01T12:00:00.000Z'),
      `${encodeAuditCursor('2026-03-01T12:00:00.000Z#0123abcd')}A`,
      42,
    ]) {
      const error = await refusal(admin.listAudit({ issuer: issuer.issuerId, cursor, limit: 101 }))
      expect(api(error)).toMatchObject({
        status: 400,
        code: 'validation_failed',
        errors: [
          { field: 'limit', message: 'limit must be a whole number from 1 to 100, got 101' },
          { field: 'cursor', message: `cursor ${CURSOR_RULE}` },
        ],
      })
    }
    expect(store.calls.length).toBe(calls)
    await expect(
      admin.listAudit({
        issuer: issuer.issuerId,
        cursor: encodeAuditCursor('2026-03-01T12:00:00.000Z#0123abcd'),
      }),
    ).resolves.toEqual({ entries: [], nextCursor: null })
  })
})

describe('a request', () => {
  it("abandons the store's calls when its deadline aborts", async () => {
    const { admin: _, store, issuer } = await withIssuer()
    const deadline = new AbortController()
    const admin = makeAdmin(store.withSignal(deadline.signal), () => START, { actor: ALICE })
    deadline.abort()
    await expect(admin.listKeys({ issuer: issuer.issuerId })).rejects.toThrow(/aborted/)
  })
})
