import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb'
import { makeProgramValues } from '../../functions/core/program-values'
import { auditEntry } from '../../functions/domain/audit-entry'
import { newId } from '../../functions/domain/ids'
import type { Actor } from '../../functions/domain/people'
import {
  type ProgramValueEntry,
  valueOutboxItem,
  valuesPartition,
} from '../../functions/domain/program-value'
import { DynamoDbProgramValueStore } from '../../functions/stores/program-values.dynamodb'
import { type Call, expectProblem, type Issuer, newIssuer } from '../support/api'
import { useApi } from '../support/api-harness'
import { type Person, signUpPerson } from '../support/identity'
import { documentClient, dynamodb } from '../support/runtime'
import { declaredAccess, recordAccess } from './grants-support'
import { auditOf, documented, join, manage, tables } from './programs-keys.support'

/**
 * A program's value (issue 32, section 1) through the local server with real access tokens from
 * the run's Cognito emulator: who may set and read it, what a wrong body writes (nothing), which
 * entry is the current value (the latest `asOf`), the history's order and pages, the audit entry,
 * the outbox item of `program.value_changed`, and the exact DynamoDB calls of each route.
 */

const api = useApi()
let a: Issuer
let b: Issuer
/** A's owner, admin and viewer, and B's owner: each a real person of the Cognito emulator. */
const who = {} as Record<'owner' | 'admin' | 'viewer' | 'ownerOfB', Person>

beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 100 }), newIssuer()])
  const people = await Promise.all([1, 2, 3, 4].map(() => signUpPerson()))
  ;[who.owner, who.admin, who.viewer, who.ownerOfB] = people as [Person, Person, Person, Person]
  await Promise.all(
    (
      [
        [who.owner, a, 'owner'],
        [who.admin, a, 'admin'],
        [who.viewer, a, 'viewer'],
        [who.ownerOfB, b, 'owner'],
      ] as const
    ).map(([person, issuer, role]) => join(person, issuer.issuerId, role)),
  )
})

/** A call, its answer held against openapi.json (status, body schema, headers) when it is a value route's. */
const call = async (person: Person | undefined, method: string, path: string, body?: unknown) => {
  const answer = await manage(api.baseUrl, person, method, path, body)
  if (/\/values(\?|$)/.test(path)) {
    documented(method === 'POST' ? 'SetProgramValue' : 'ListProgramValues', answer)
  }
  return answer
}
const valuesPath = (issuerId: string, programId: string) =>
  `/manage/issuers/${issuerId}/programs/${programId}/values`

const today = () => new Date().toISOString().slice(0, 10)
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

const headValue = async (programId: string) =>
  (
    await documentClient.send(
      new GetCommand({ TableName: tables.programs, Key: { programId }, ConsistentRead: true }),
    )
  ).Item?.value
const history = async (programId: string) =>
  (
    await documentClient.send(
      new QueryCommand({
        TableName: tables.figures,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': valuesPartition(programId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? []

/** What a value change could have written for the program: head value, history, audit log. */
const stateOf = async (issuerId: string, programId: string) => ({
  head: await headValue(programId),
  history: await history(programId),
  audit: (await auditOf(issuerId)).length,
})

describe('who may set and read a value', () => {
  it('owners and admins set; viewers read but may not set (403, nothing written)', async () => {
    const { LIVE } = a.programs
    const set = await call(who.owner, 'POST', valuesPath(a.issuerId, LIVE), {
      amount: '12.50',
      currency: 'EUR',
      asOf: '2026-01-01',
    })
    expect(set.status).toBe(201)
    const byAdmin = await call(who.admin, 'POST', valuesPath(a.issuerId, LIVE), {
      amount: '13',
      currency: 'EUR',
      asOf: '2026-01-02',
      method: '  409A by an outside firm  ',
    })
    expect(byAdmin.status).toBe(201)
    expect(byAdmin.body).toEqual({
      object: 'program_value',
      id: expect.stringMatching(/^val_[0-9a-hjkmnp-tv-z]{26}$/),
      programId: LIVE,
      amount: '13',
      currency: 'EUR',
      asOf: '2026-01-02',
      method: '409A by an outside firm',
      setAt: expect.stringMatching(ISO),
      setBy: who.admin.email,
      current: true,
    })
    expect(byAdmin.headers.get('cache-control')).toBe('no-store')

    const before = await stateOf(a.issuerId, LIVE)
    const refused = await call(who.viewer, 'POST', valuesPath(a.issuerId, LIVE), {
      amount: '1',
      currency: 'EUR',
      asOf: '2026-01-03',
    })
    expectProblem(refused, 403, 'forbidden')
    expect(await stateOf(a.issuerId, LIVE)).toEqual(before)

    const read = await call(who.viewer, 'GET', valuesPath(a.issuerId, LIVE))
    expect(read.status).toBe(200)
    expect((read.body.data as { id: string }[]).map((v) => v.id)).toEqual([
      byAdmin.body.id,
      set.body.id,
    ])
  })

  it("answers another issuer's program, a malformed id and a non-member like missing ones", async () => {
    const before = await stateOf(a.issuerId, a.programs.TEST)
    const valid = { amount: '1', currency: 'EUR', asOf: '2026-01-01' }
    // B's owner names A's program under B's own issuer: program_not_found, as a missing one.
    for (const [method, body] of [
      ['POST', valid],
      ['GET', undefined],
    ] as const) {
      const answer = await call(who.ownerOfB, method, valuesPath(b.issuerId, a.programs.TEST), body)
      expectProblem(answer, 404, 'program_not_found')
      const missing = await call(
        who.ownerOfB,
        method,
        valuesPath(b.issuerId, newId('program')),
        body,
      )
      expectProblem(missing, 404, 'program_not_found')
      expectProblem(
        await call(who.ownerOfB, method, valuesPath(b.issuerId, 'prg_x'), body),
        404,
        'program_not_found',
      )
      // Not a member of A at all: the issuer is not found.
      const stranger = await call(
        who.ownerOfB,
        method,
        valuesPath(a.issuerId, a.programs.TEST),
        body,
      )
      expectProblem(stranger, 404, 'issuer_not_found')
    }
    expect(await stateOf(a.issuerId, a.programs.TEST)).toEqual(before)
    expect(await history(a.programs.TEST)).toEqual([])
  })
})

describe('what a value is', () => {
  it('refuses a wrong body with 400 naming each field, and writes nothing', async () => {
    const { TEST } = a.programs
    const before = await stateOf(a.issuerId, TEST)
    const cases: [unknown, string[]][] = [
      [{ amount: 12.5, currency: 'EUR', asOf: '2026-01-01' }, ['amount']],
      [{ amount: '-1', currency: 'eur', asOf: '2026-02-30' }, ['amount', 'currency', 'asOf']],
      [{ amount: '1e3', currency: 'XYZ', asOf: '2026-1-1' }, ['amount', 'currency', 'asOf']],
      [{ amount: '1.1234567', currency: 'EUR', asOf: '2026-01-01', extra: 1 }, ['amount', 'extra']],
      [{ currency: 'EUR', asOf: '2026-01-01', method: 'a\u202Eb' }, ['amount', 'method']],
      [{ amount: '1', currency: 'EUR', asOf: '2026-01-01', method: 'x'.repeat(501) }, ['method']],
      [{ amount: '1', currency: 'EUR', asOf: '2026-01-01', method: 'a\nb' }, ['method']],
      [[1], ['(body)']],
    ]
    for (const [body, fields] of cases) {
      const answer = await call(who.admin, 'POST', valuesPath(a.issuerId, TEST), body)
      expectProblem(answer, 400, 'validation_failed')
      expect((answer.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual(
        [...fields].sort(),
      )
    }
    const message = (
      await call(who.admin, 'POST', valuesPath(a.issuerId, TEST), { currency: 'EUR' })
    ).body.errors as { field: string; message: string }[]
    expect(message).toContainEqual({ field: 'amount', message: 'amount is required' })
    expect(await stateOf(a.issuerId, TEST)).toEqual(before)
  })

  it('refuses a date in the future, allows the date it already is somewhere on Earth', async () => {
    const { TEST } = a.programs
    const before = await stateOf(a.issuerId, TEST)
    const future = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10)
    const answer = await call(who.admin, 'POST', valuesPath(a.issuerId, TEST), {
      amount: '1',
      currency: 'EUR',
      asOf: future,
    })
    expectProblem(answer, 400, 'validation_failed')
    expect(answer.body.errors).toEqual([
      { field: 'asOf', message: expect.stringContaining('must not be in the future') },
    ])
    expect(await stateOf(a.issuerId, TEST)).toEqual(before)
    // Today in UTC is always allowed.
    const ok = await call(who.admin, 'POST', valuesPath(a.issuerId, TEST), {
      amount: '0.000001',
      currency: 'JPY',
      asOf: today(),
      method: null,
    })
    expect(ok.status).toBe(201)
    expect(ok.body).toMatchObject({ amount: '0.000001', currency: 'JPY', method: null })
  })
})

describe('the current value and the history', () => {
  it('keeps the latest asOf as current: a backdated entry joins the history only; audited; outbox', async () => {
    const c = await newIssuer()
    await join(who.owner, c.issuerId, 'owner')
    const program = c.programs.LIVE
    const post = (body: object) => call(who.owner, 'POST', valuesPath(c.issuerId, program), body)
    const first = await post({ amount: '10', currency: 'EUR', asOf: '2026-03-01' })
    const newer = await post({
      amount: '12.50',
      currency: 'EUR',
      asOf: '2026-06-01',
      method: 'DCF',
    })
    const older = await post({ amount: '9', currency: 'EUR', asOf: '2026-02-01' })
    const sameDay = await post({ amount: '12.75', currency: 'EUR', asOf: '2026-06-01' })
    expect([first, newer, older, sameDay].map((x) => [x.status, x.body.current])).toEqual([
      [201, true],
      [201, true],
      [201, false],
      [201, true],
    ])
    expect(await headValue(program)).toEqual({
      valueId: sameDay.body.id,
      amount: '12.75',
      currency: 'EUR',
      asOf: '2026-06-01',
      setAt: sameDay.body.setAt,
    })

    // Newest asOf first (the same day: the latest set first); `current` on the head's one only.
    const list = await call(who.owner, 'GET', valuesPath(c.issuerId, program))
    expect(list.status).toBe(200)
    const items = list.body.data as { id: string; current: boolean }[]
    expect(items.map((v) => [v.id, v.current])).toEqual([
      [sameDay.body.id, true],
      [newer.body.id, false],
      [first.body.id, false],
      [older.body.id, false],
    ])
    expect(list.body.nextCursor).toBeNull()

    // Pages of two, through the cursor; a cursor not made here is refused.
    const page1 = await call(who.owner, 'GET', `${valuesPath(c.issuerId, program)}?limit=2`)
    const page2 = await call(
      who.owner,
      'GET',
      `${valuesPath(c.issuerId, program)}?limit=2&cursor=${page1.body.nextCursor}`,
    )
    expect(
      [...(page1.body.data as Call['body'][]), ...(page2.body.data as Call['body'][])].map(
        (v) => v.id,
      ),
    ).toEqual(items.map((v) => v.id))
    expect(page2.body.nextCursor).toBeNull()
    for (const query of ['?cursor=abc', '?limit=0', '?limit=101', '?sort=asc']) {
      expectProblem(
        await call(who.owner, 'GET', `${valuesPath(c.issuerId, program)}${query}`),
        400,
        'validation_failed',
      )
    }

    // One audit entry per change, naming the value and whether it became current.
    const audit = (await auditOf(c.issuerId)).filter((e) => e.action === 'program.value')
    expect(audit).toHaveLength(4)
    expect(audit.find((e) => e.details?.valueId === older.body.id)).toMatchObject({
      actor: { kind: 'person', email: who.owner.email },
      target: { type: 'program', id: program },
      details: { amount: '9', currency: 'EUR', asOf: '2026-02-01', current: false },
      requestId: expect.any(String),
    })

    // The outbox item of program.value_changed, in the grants table (its stream), purged in 2 days.
    const outbox = await documentClient.send(
      new GetCommand({
        TableName: tables.grants,
        Key: { grantId: `value#${program}#${newer.body.id}` },
        ConsistentRead: true,
      }),
    )
    expect(outbox.Item).toMatchObject({
      itemType: 'programValue',
      issuerId: c.issuerId,
      program,
      mode: 'LIVE',
      amount: '12.50',
      method: 'DCF',
      current: true,
    })
    expect(outbox.Item?.setBy).toBeUndefined()
    const purgeAt = outbox.Item?.purgeAt as number
    expect(Math.abs(purgeAt - (Date.now() / 1000 + 2 * 86_400))).toBeLessThan(3_600)
  })

  it('decides again when a newer value wins the race: the head is never moved backwards', async () => {
    const c = await newIssuer()
    const program = c.programs.TEST
    const store = new DynamoDbProgramValueStore(documentClient, tables)
    const actor: Actor = { kind: 'person', sub: 'sub', email: 'p@example.com' }
    const entryAt = (asOf: string): ProgramValueEntry => ({
      valueId: newId('value'),
      programId: program,
      amount: '1',
      currency: 'EUR',
      asOf,
      setAt: new Date().toISOString(),
      setBy: 'p@example.com',
    })
    const record = (entry: ProgramValueEntry, head: Awaited<ReturnType<typeof store.getHead>>) =>
      store.recordValue({
        head: head as NonNullable<typeof head>,
        entry,
        current: true,
        issuerId: c.issuerId,
        audit: auditEntry({
          issuerId: c.issuerId,
          actor,
          action: 'program.value',
          target: { type: 'program', id: program },
          now: Date.now(),
        }),
        outbox: valueOutboxItem(entry, {
          issuerId: c.issuerId,
          mode: 'TEST',
          current: true,
          now: Date.now(),
        }),
      })
    const seen = await store.getHead(program)
    const winner = entryAt('2026-05-01')
    expect(await record(winner, seen)).toEqual({ kind: 'done', current: true })
    // Decided on the head as read before the winner: refused, the winner comes back.
    const late = entryAt('2026-04-01')
    const outcome = await record(late, seen)
    expect(outcome).toMatchObject({ kind: 'stale', head: { value: { valueId: winner.valueId } } })
    expect((await headValue(program))?.valueId).toBe(winner.valueId)
    expect((await history(program)).map((i) => i.valueId)).toEqual([winner.valueId])
    // Another issuer: not found, nothing written.
    const other = await store.recordValue({
      head: seen as NonNullable<typeof seen>,
      entry: entryAt('2026-06-01'),
      current: false,
      issuerId: a.issuerId,
      audit: auditEntry({
        issuerId: a.issuerId,
        actor,
        action: 'program.value',
        target: { type: 'program', id: program },
        now: Date.now(),
      }),
      outbox: valueOutboxItem(entryAt('2026-06-01'), {
        issuerId: a.issuerId,
        mode: 'TEST',
        current: false,
        now: Date.now(),
      }),
    })
    expect(other).toEqual({ kind: 'not_found' })
    expect(await history(program)).toHaveLength(1)
  })
})

it('a change that loses the race to a later value is kept as backdated, decided again on the new head', async () => {
  const c = await newIssuer()
  const program = c.programs.LIVE
  const store = new DynamoDbProgramValueStore(documentClient, tables)
  const person: Actor = { kind: 'person', sub: 'sub', email: 'racer@example.com' }
  const values = (now: number) =>
    makeProgramValues({ store, clock: () => now, who: { actor: person, requestId: 'req' } })
  const at = Date.parse('2026-11-29T10:00:00.000Z')
  // The other change lands between this one's read of the head and its write.
  let raced = false
  const racing = Object.create(store) as DynamoDbProgramValueStore
  racing.recordValue = async (input) => {
    if (!raced) {
      raced = true
      await values(at + 1).setValue({
        programId: program,
        issuerId: c.issuerId,
        body: { amount: '20', currency: 'EUR', asOf: '2026-11-20' },
      })
    }
    return store.recordValue(input)
  }
  const mine = await makeProgramValues({
    store: racing,
    clock: () => at,
    who: { actor: person, requestId: 'req' },
  }).setValue({
    programId: program,
    issuerId: c.issuerId,
    body: { amount: '10', currency: 'EUR', asOf: '2026-11-10' },
  })
  expect(mine).toMatchObject({ amount: '10', current: false })
  expect((await headValue(program))?.amount).toBe('20')
  expect((await history(program)).map((i) => i.amount)).toEqual(['10', '20'])
  const audit = (await auditOf(c.issuerId)).filter((e) => e.details?.amount === '10')
  expect(audit.map((e) => e.details?.current)).toEqual([false])
})

describe('IAM: each value route makes exactly the DynamoDB calls it declares', () => {
  it('SetProgramValue (current and backdated) and ListProgramValues', async () => {
    const c = await newIssuer()
    await join(who.admin, c.issuerId, 'admin')
    const path = valuesPath(c.issuerId, c.programs.TEST)
    const runs: [string, () => Promise<unknown>][] = [
      [
        'SetProgramValue',
        async () => {
          await call(who.admin, 'POST', path, { amount: '2', currency: 'USD', asOf: '2026-02-01' })
          await call(who.admin, 'POST', path, { amount: '1', currency: 'USD', asOf: '2026-01-01' })
        },
      ],
      ['ListProgramValues', () => call(who.admin, 'GET', path)],
    ]
    for (const [id, run] of runs) {
      const recorder = recordAccess(dynamodb)
      try {
        await run()
      } finally {
        recorder.stop()
      }
      expect({ id, seen: recorder.seen }).toEqual({ id, seen: declaredAccess(id) })
    }
  })
})
