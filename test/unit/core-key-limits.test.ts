import { makeAdmin } from '../../functions/core/admin'
import { InvalidInput, NotFound, StateConflict } from '../../functions/domain/admin-errors'
import type { Actor } from '../../functions/domain/people'
import { problemResponse } from '../../functions/http/problem'
import { FakeAdminStore } from '../support/fake-admin-store'

/**
 * A key's rate limit as a use case (functions/core/admin-key-limits.ts), in process over the
 * AdminStore in memory: what a person may set and what only the operator may, another issuer's key
 * answered as a missing one, and a key changed between the read and the write refused with
 * nothing written. Through HTTP and DynamoDB: test/manage/key-limits.manage.test.ts.
 */

const START = Date.parse('2026-03-01T12:00:00.000Z')
const ALICE: Actor = { kind: 'person', sub: 'sub-alice', email: 'alice@example.com' }

const setup = async () => {
  const store = new FakeAdminStore()
  const operator = makeAdmin(store, () => START)
  const person = makeAdmin(store, () => START, { actor: ALICE, requestId: 'req-1' })
  const issuer = await operator.createIssuer({ name: 'Acme' })
  const other = await operator.createIssuer({ name: 'Other' })
  const { record } = await operator.createKey({ issuer: issuer.issuerId, mode: 'LIVE' })
  return { store, operator, person, issuer, other, key: record }
}

const refusal = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error('expected the use case to refuse')
    },
    (error: unknown) => error,
  )

it('lets a person lower a key to any limit up to its default, and the operator set any', async () => {
  const { store, operator, person, issuer, key } = await setup()
  const scope = { issuerId: issuer.issuerId }
  expect((await person.setKeyRateLimit(key.keyId, 1, scope)).rateLimit).toBe(1)
  expect((await person.setKeyRateLimit(key.keyId, 100, scope)).rateLimit).toBe(100)
  const refused = await refusal(person.setKeyRateLimit(key.keyId, 101, scope))
  expect(refused).toBeInstanceOf(InvalidInput)
  expect((await operator.setKeyRateLimit(key.keyId, '2000')).rateLimit).toBe(2000)
  expect((await person.setKeyRateLimit(key.keyId, 1999, scope)).rateLimit).toBe(1999)
  const back = await person.setKeyRateLimit(key.keyId, null, scope)
  expect(back.rateLimit).toBeUndefined()
  expect(store.state.keys.get(key.keyHash)?.rateLimit).toBeUndefined()
  expect(
    store.state.audit.filter((e) => e.action === 'key.rate_limit').map((e) => e.details),
  ).toEqual([
    { from: 100, to: 1, fromDefault: true, toDefault: false },
    { from: 1, to: 100, fromDefault: false, toDefault: false },
    { from: 100, to: 2000, fromDefault: false, toDefault: false },
    { from: 2000, to: 1999, fromDefault: false, toDefault: false },
    { from: 1999, to: 100, fromDefault: false, toDefault: true },
  ])
})

it("answers another issuer's key as a missing one, writing nothing", async () => {
  const { store, person, other, key } = await setup()
  const audited = store.state.audit.length
  const error = await refusal(person.setKeyRateLimit(key.keyId, 5, { issuerId: other.issuerId }))
  expect(error).toBeInstanceOf(NotFound)
  expect(problemResponse(error, 'req-1').problem).toMatchObject({
    status: 404,
    code: 'key_not_found',
  })
  expect(store.state.audit.length).toBe(audited)
})

it('refuses a key changed between the read and the write (409), writing nothing', async () => {
  const { store, person, operator, issuer, key } = await setup()
  const audited = store.state.audit.length
  // Another change lands between this request's read of the key and its write.
  store.beforeWrite = (method) => {
    if (method !== 'setApiKeyRateLimit') return
    store.beforeWrite = undefined
    const stored = store.state.keys.get(key.keyHash)
    if (stored) stored.rateLimit = 50
  }
  const error = await refusal(person.setKeyRateLimit(key.keyId, 10, { issuerId: issuer.issuerId }))
  expect(error).toBeInstanceOf(StateConflict)
  expect(problemResponse(error, 'req-1').problem).toMatchObject({
    status: 409,
    code: 'key_state_conflict',
    detail: `Key ${key.keyId} changed while setting its rate limit; nothing was written.`,
  })
  expect(store.state.keys.get(key.keyHash)?.rateLimit).toBe(50)
  expect(store.state.audit.length).toBe(audited)
  // Revoked in between: told as revoked.
  store.beforeWrite = (method) => {
    if (method !== 'setApiKeyRateLimit') return
    store.beforeWrite = undefined
    const stored = store.state.keys.get(key.keyHash)
    if (stored) stored.status = 'revoked'
  }
  const revoked = await refusal(operator.setKeyRateLimit(key.keyId, 10))
  expect((revoked as Error).message).toBe(
    `Key ${key.keyId} is revoked; only an active key's rate limit can be changed.`,
  )
  expect(store.state.audit.length).toBe(audited)
})
