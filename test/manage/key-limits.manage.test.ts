import { DEFAULT_RATE_LIMITS, MAX_RATE_LIMIT } from '../../functions/domain/rate-limit'
import {
  adminStore,
  type Call,
  expectProblem,
  type Issuer,
  newIssuer,
  admin as operator,
  request,
  revokeKey,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { accessTokenFor, bearer, type Person, signUpPerson } from '../support/identity'
import { auditOf, documented, expectIssuersUnchanged, join, manage } from './programs-keys.support'

/**
 * A key's rate limit in the management API (issue 33), `PATCH /manage/issuers/{issuerId}/keys/
 * {keyId}`, through the local server with the Cognito emulator's tokens: owners and admins lower
 * it or set it back to the default, never above the mode's default or the key's limit now (the
 * operator's CLI raises it: here its use case, as `npm run admin -- key limit` runs it); each
 * change and its audit entry together; a revoked key, a bad body, a key changed meanwhile write
 * nothing. Who may call it at all (no token, a viewer, another issuer's key) is in
 * programs-keys.manage.test.ts with every key route.
 */

const api = useApi()
let a: Issuer
let owner: Person
let admin: Person
let viewer: Person

beforeAll(async () => {
  a = await newIssuer()
  ;[owner, admin, viewer] = (await Promise.all([
    signUpPerson(),
    signUpPerson(),
    signUpPerson(),
  ])) as [Person, Person, Person]
  await Promise.all([
    join(owner, a.issuerId, 'owner'),
    join(admin, a.issuerId, 'admin'),
    join(viewer, a.issuerId, 'viewer'),
  ])
})

const keyPath = (keyId: string) => `/manage/issuers/${a.issuerId}/keys/${keyId}`
const patch = (person: Person, keyId: string, body: unknown) =>
  manage(api.baseUrl, person, 'PATCH', keyPath(keyId), body)
const update = async (person: Person, keyId: string, body: unknown) =>
  documented('UpdateKey', await patch(person, keyId, body))
/** The key as the viewer's key list shows it. */
const listed = async (keyId: string) => {
  const list = documented(
    'ListKeys',
    await manage(api.baseUrl, viewer, 'GET', `/manage/issuers/${a.issuerId}/keys`),
  )
  return (list.body.keys as { id: string }[]).find((k) => k.id === keyId)
}
/** A fresh active key of the issuer, its id. */
const freshKey = async (mode: 'TEST' | 'LIVE' = 'TEST') =>
  (await operator.createKey({ issuer: a.issuerId, mode })).record.keyId

describe("a key's rate limit", () => {
  it('is the mode default until set, lowered by an admin, back to the default by the owner, each audited', async () => {
    const keyId = await freshKey()
    expect(await listed(keyId)).toMatchObject({
      rateLimit: DEFAULT_RATE_LIMITS.TEST,
      rateLimitIsDefault: true,
    })
    const lowered = documented('UpdateKey', await patch(admin, keyId, { rateLimit: 10 }), {
      examples: 'all',
    })
    expect(lowered.status).toBe(200)
    expect(lowered.body).toMatchObject({ id: keyId, rateLimit: 10, rateLimitIsDefault: false })
    expect(await listed(keyId)).toEqual(lowered.body)
    const [entry] = await auditOf(a.issuerId)
    expect(entry).toMatchObject({
      action: 'key.rate_limit',
      target: { type: 'key', id: keyId },
      actor: { kind: 'person', sub: admin.sub, email: admin.email },
      requestId: lowered.headers.get('x-request-id'),
      details: { from: 25, to: 10, fromDefault: true, toDefault: false },
    })

    // Up again, to the default at most: the owner goes back to it with null.
    expect((await update(admin, keyId, { rateLimit: 25 })).body.rateLimit).toBe(25)
    const reset = await update(owner, keyId, { rateLimit: null })
    expect(reset.status).toBe(200)
    expect(reset.body).toMatchObject({ rateLimit: 25, rateLimitIsDefault: true })
    expect(await listed(keyId)).toMatchObject({ rateLimit: 25, rateLimitIsDefault: true })
    const [last, before] = await auditOf(a.issuerId)
    expect(last?.details).toEqual({ from: 25, to: 25, fromDefault: false, toDefault: true })
    expect(before?.details).toEqual({ from: 10, to: 25, fromDefault: false, toDefault: false })
  })

  it('refuses a person more than the mode default or the limit now, naming rateLimit; nothing written', async () => {
    const test = await freshKey('TEST')
    const live = await freshKey('LIVE')
    for (const [keyId, asked, max] of [
      [test, 26, 25],
      [live, 101, 100],
      [test, MAX_RATE_LIMIT, 25],
    ] as const) {
      await expectIssuersUnchanged([a.issuerId], async () => {
        const refused = await update(admin, keyId, { rateLimit: asked })
        expectProblem(refused, 400, 'validation_failed')
        expect(refused.body.errors).toEqual([
          {
            field: 'rateLimit',
            message: `rateLimit must be a whole number from 1 to ${max}, got ${asked}; only the operator raises a key above its mode's default (${max}) or its limit now (${max})`,
          },
        ])
      })
    }
    // The mode's default itself is allowed: the key's own limit then, whatever the default becomes.
    const pinned = await update(owner, live, { rateLimit: 100 })
    expect(pinned.body).toMatchObject({ rateLimit: 100, rateLimitIsDefault: false })
    // The same again writes nothing.
    await expectIssuersUnchanged([a.issuerId], async () => {
      expect((await update(owner, live, { rateLimit: 100 })).body).toEqual(pinned.body)
    })
  })

  it("lets a person lower a limit the operator raised, never raise it back; the operator's CLI sets any", async () => {
    const keyId = await freshKey()
    const raised = await operator.setKeyRateLimit(keyId, 500)
    expect(raised.rateLimit).toBe(500)
    const [entry] = await auditOf(a.issuerId)
    expect(entry).toMatchObject({
      action: 'key.rate_limit',
      actor: { kind: 'operator' },
      details: { from: 25, to: 500, fromDefault: true, toDefault: false },
    })
    expect(await listed(keyId)).toMatchObject({ rateLimit: 500, rateLimitIsDefault: false })
    expect((await update(admin, keyId, { rateLimit: 400 })).body.rateLimit).toBe(400)
    await expectIssuersUnchanged([a.issuerId], async () => {
      const refused = await update(admin, keyId, { rateLimit: 500 })
      expectProblem(refused, 400, 'validation_failed')
      expect(refused.body.errors).toEqual([
        {
          field: 'rateLimit',
          message:
            "rateLimit must be a whole number from 1 to 400, got 500; only the operator raises a key above its mode's default (25) or its limit now (400)",
        },
      ])
    })
    await expect(operator.setKeyRateLimit(keyId, MAX_RATE_LIMIT + 1)).rejects.toMatchObject({
      fact: 'invalid_input',
      problems: [
        {
          field: 'rateLimit',
          rule: `must be a whole number from 1 to ${MAX_RATE_LIMIT}, got ${MAX_RATE_LIMIT + 1}`,
        },
      ],
    })
    expect((await operator.setKeyRateLimit(keyId, String(MAX_RATE_LIMIT))).rateLimit).toBe(
      MAX_RATE_LIMIT,
    )
  })

  it('refuses bad bodies with 400 naming the field, nothing written', async () => {
    const keyId = await freshKey()
    for (const [body, errors] of [
      [{}, [['rateLimit', 'rateLimit is required']]],
      [{ rateLimit: '10' }, [['rateLimit', 'rateLimit must be a number or null']]],
      [
        { rateLimit: 0 },
        [
          [
            'rateLimit',
            "rateLimit must be a whole number from 1 to 25, got 0; only the operator raises a key above its mode's default (25) or its limit now (25)",
          ],
        ],
      ],
      [
        { rateLimit: 2.5 },
        [
          [
            'rateLimit',
            "rateLimit must be a whole number from 1 to 25, got 2.5; only the operator raises a key above its mode's default (25) or its limit now (25)",
          ],
        ],
      ],
      [{ rateLimit: 5, burst: 10 }, [['burst', 'unknown field "burst"']]],
    ] as [unknown, [string, string][]][]) {
      await expectIssuersUnchanged([a.issuerId], async () => {
        const answer = await update(admin, keyId, body)
        expectProblem(answer, 400, 'validation_failed')
        expect(answer.body.errors).toEqual(errors.map(([field, message]) => ({ field, message })))
      })
    }
    await expectIssuersUnchanged([a.issuerId], async () => {
      const notJson = documented(
        'UpdateKey',
        await request(api.baseUrl, 'PATCH', keyPath(keyId), {
          headers: { ...bearer(await accessTokenFor(admin)), 'content-type': 'application/json' },
          body: '{"rateLimit": 5',
        }),
      )
      expectProblem(notJson, 400, 'malformed_json')
    })
  })

  it('refuses a revoked or expired key with 409 key_state_conflict, nothing written', async () => {
    const revoked = await operator.createKey({ issuer: a.issuerId, mode: 'TEST' })
    await revokeKey(revoked.record.keyHash)
    const expired = await operator.createKey({ issuer: a.issuerId, mode: 'TEST' })
    await operator.rollKey(expired.record.keyId, '0')
    for (const [keyId, state] of [
      [revoked.record.keyId, 'revoked'],
      [expired.record.keyId, 'expired'],
    ]) {
      await expectIssuersUnchanged([a.issuerId], async () => {
        const refused: Call = await update(owner, keyId as string, { rateLimit: 5 })
        expectProblem(refused, 409, 'key_state_conflict')
        expect(refused.body.detail).toBe(
          `Key ${keyId} is ${state}; only an active key's rate limit can be changed.`,
        )
      })
    }
  })

  it('writes only on the key as it was read: a limit changed meanwhile refuses the write', async () => {
    const keyId = await freshKey()
    const key = await adminStore.findApiKeyById(keyId)
    if (!key) throw new Error('no key')
    await operator.setKeyRateLimit(keyId, 20)
    // What a person's request read before the operator's change: the key without a limit.
    await expectIssuersUnchanged([a.issuerId], async () => {
      const outcome = await adminStore.setApiKeyRateLimit(
        { keyHash: key.keyHash, to: 5, now: Date.now() },
        { issuerId: a.issuerId },
      )
      expect(outcome).toEqual({
        kind: 'refused',
        current: expect.objectContaining({ keyId, rateLimit: 20 }),
      })
    })
    // Another issuer's scope is refused alike, and names the key as found (the route says 404).
    const other = await adminStore.setApiKeyRateLimit(
      { keyHash: key.keyHash, from: 20, to: 5, now: Date.now() },
      { issuerId: 'iss_00000000000000000000000000' },
    )
    expect(other.kind).toBe('refused')
    expect((await listed(keyId)) as unknown).toMatchObject({ rateLimit: 20 })
  })
})
