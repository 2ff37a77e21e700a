import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb'
import type { GrantRecord } from '../../functions/domain/grant'
import type { ProgramRecord } from '../../functions/domain/program'
import { DynamoDbInboxStore } from '../../functions/stores/inbox.dynamodb'
import {
  expectProblem,
  grantBody,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
} from '../support/api'
import { useApi } from '../support/api-harness'
import { type Person, signUpPerson } from '../support/identity'
import { config, documentClient, dynamodb, wallClock } from '../support/runtime'
import { addMember, auditLog, declaredAccess, manageCall, recordAccess } from './grants-support'

/**
 * A grant's life for its issuer's people (issue 19), through the local server with real access
 * tokens from the run's Cognito emulator: the grant's page (its timeline, delivery, offer
 * window), cancel, resend and correct the address (admin), a program's offer settings (admin),
 * the TEST inbox and the offer e-mail's preview (viewer). Who may do what; each change audited;
 * every refusal writes nothing (grant, pool, program, audit log).
 */
const api = useApi()
let a: Issuer
let b: Issuer
let admin: Person
let viewer: Person
let adminOfB: Person

beforeAll(async () => {
  ;[a, b] = await Promise.all([newIssuer({ pool: 1_000 }), newIssuer({ pool: 1_000 })])
  ;[admin, viewer, adminOfB] = (await Promise.all([
    signUpPerson(),
    signUpPerson(),
    signUpPerson(),
  ])) as [Person, Person, Person]
  await Promise.all([
    addMember(a.issuerId, admin, 'admin'),
    addMember(a.issuerId, viewer, 'viewer'),
    addMember(b.issuerId, adminOfB, 'admin'),
  ])
})

const grantPath = (issuerId: string, grantId: string, action = '') =>
  `/manage/issuers/${issuerId}/grants/${grantId}${action ? `/${action}` : ''}`
const programPath = (issuerId: string, programId: string, rest: string) =>
  `/manage/issuers/${issuerId}/programs/${programId}/${rest}`

const call = (person: Person | undefined, method: string, path: string, body?: unknown) =>
  manageCall(api.baseUrl, person, method, path, body === undefined ? {} : { body })

const storedGrant = async (grantId: string) =>
  (
    await documentClient.send(
      new GetCommand({ TableName: config.tables.grants, Key: { grantId }, ConsistentRead: true }),
    )
  ).Item as GrantRecord

/** Any item of the programs table (a head, a shard, a terms text) as stored. */
const storedItem = async (programId: string) =>
  (
    await documentClient.send(
      new GetCommand({
        TableName: config.tables.programs,
        Key: { programId },
        ConsistentRead: true,
      }),
    )
  ).Item

const storedProgram = async (programId: string) =>
  (
    await documentClient.send(
      new GetCommand({
        TableName: config.tables.programs,
        Key: { programId },
        ConsistentRead: true,
      }),
    )
  ).Item as ProgramRecord

/** A new grant through the grant API (the integrator's key). */
const newGrant = async (issuer: Issuer, mode: 'TEST' | 'LIVE' = 'TEST', amount = 10) => {
  const made = await postGrant(
    api.baseUrl,
    issuer.programs[mode],
    issuer.keys[mode],
    grantBody({
      amount,
      recipient: { email: `r-${Math.random().toString(36).slice(2)}@example.com` },
    }),
  )
  expect(made.status).toBe(201)
  return made.body.id as string
}

/** Puts a grant in a final state directly (what the recipient's page or the sweep would do). */
const forceState = (grantId: string, status: string, reason?: string) =>
  documentClient.send(
    new UpdateCommand({
      TableName: config.tables.grants,
      Key: { grantId },
      UpdateExpression: reason ? 'SET #s = :s, #r = :r' : 'SET #s = :s',
      ExpressionAttributeNames: { '#s': 'status', ...(reason ? { '#r': 'rejectionReason' } : {}) },
      ExpressionAttributeValues: { ':s': status, ...(reason ? { ':r': reason } : {}) },
    }),
  )

/** Runs `act` and asserts that the grant, its program's pool and the audit log are unchanged. */
const expectGrantUntouched = async (grantId: string, act: () => Promise<void>) => {
  const grant = await storedGrant(grantId)
  const [pool, audit] = await Promise.all([programState(grant.programId), auditLog(grant.issuerId)])
  await act()
  expect(await storedGrant(grantId)).toEqual(grant)
  expect((await programState(grant.programId)).issued).toBe(pool.issued)
  expect((await auditLog(grant.issuerId)).length).toBe(audit.length)
}

describe('GET /manage/issuers/{issuerId}/grants/{grantId}: the grant page', () => {
  it('shows a viewer the state, the offer window, the delivery and the timeline', async () => {
    const grantId = await newGrant(a)
    const stored = await storedGrant(grantId)
    const got = await call(viewer, 'GET', grantPath(a.issuerId, grantId))
    expect(got.status).toBe(200)
    expect(got.headers.get('cache-control')).toBe('no-store')
    expect(got.body).toMatchObject({
      id: grantId,
      status: 'reserved',
      rejectionReason: null,
      expiresAt: stored.expiresAt ?? expect.any(String),
      delivery: { state: 'pending', sends: 0, lastSentAt: null, resendRequestedAt: null },
      history: [],
      source: 'api',
    })
    // Never the link tokens' hashes.
    expect(got.text).not.toContain('tokens')
  })

  it('answers 404 for another issuer, a malformed id and a non-member alike; 401 without a token', async () => {
    const grantId = await newGrant(a)
    expectProblem(
      await call(adminOfB, 'GET', grantPath(b.issuerId, grantId)),
      404,
      'grant_not_found',
    )
    expectProblem(
      await call(viewer, 'GET', grantPath(a.issuerId, 'gr_nope')),
      404,
      'grant_not_found',
    )
    expectProblem(
      await call(adminOfB, 'GET', grantPath(a.issuerId, grantId)),
      404,
      'issuer_not_found',
    )
    // The gateway's authorizer answers, before the function.
    expect((await call(undefined, 'GET', grantPath(a.issuerId, grantId))).status).toBe(401)
  })
})

describe('POST .../grants/{grantId}/cancel', () => {
  it('cancels an open grant: shares back, a timeline line and an audit entry, once', async () => {
    const grantId = await newGrant(a, 'LIVE', 25)
    const before = await programState(a.programs.LIVE)
    const canceled = await call(admin, 'POST', grantPath(a.issuerId, grantId, 'cancel'))
    expect(canceled.status).toBe(200)
    expect(canceled.body).toMatchObject({ id: grantId, status: 'canceled' })
    const history = canceled.body.history as { state?: string; actor: string }[]
    expect(history).toEqual([
      expect.objectContaining({
        event: 'transition',
        state: 'canceled',
        actor: `person:${admin.email}`,
      }),
    ])
    expect((await programState(a.programs.LIVE)).issued).toBe(before.issued - 25)
    expect((await storedGrant(grantId)).status).toBe('canceled')
    const entries = (await auditLog(a.issuerId)).filter((e) => e.target.id === grantId)
    expect(entries).toEqual([
      expect.objectContaining({
        action: 'grant.cancel',
        actor: { kind: 'person', sub: admin.sub, email: admin.email },
        requestId: canceled.headers.get('x-request-id') ?? expect.any(String),
      }),
    ])

    // Again: the grant as it is, nothing written (no second return, no second entry).
    await expectGrantUntouched(grantId, async () => {
      const again = await call(admin, 'POST', grantPath(a.issuerId, grantId, 'cancel'))
      expect(again.status).toBe(200)
      expect(again.body.status).toBe('canceled')
    })
  })

  it('refuses an accepted grant (409 grant_accepted) and an expired one (409 grant_state_conflict)', async () => {
    const accepted = await newGrant(a)
    await forceState(accepted, 'accepted')
    await expectGrantUntouched(accepted, async () => {
      expectProblem(
        await call(admin, 'POST', grantPath(a.issuerId, accepted, 'cancel')),
        409,
        'grant_accepted',
      )
    })
    const expired = await newGrant(a)
    await forceState(expired, 'expired')
    await expectGrantUntouched(expired, async () => {
      expectProblem(
        await call(admin, 'POST', grantPath(a.issuerId, expired, 'cancel')),
        409,
        'grant_state_conflict',
      )
    })
  })

  it('refuses a viewer (403), another issuer (404) and a malformed id (404), writing nothing', async () => {
    const grantId = await newGrant(a)
    await expectGrantUntouched(grantId, async () => {
      expectProblem(
        await call(viewer, 'POST', grantPath(a.issuerId, grantId, 'cancel')),
        403,
        'forbidden',
      )
      expectProblem(
        await call(adminOfB, 'POST', grantPath(b.issuerId, grantId, 'cancel')),
        404,
        'grant_not_found',
      )
      expectProblem(
        await call(adminOfB, 'POST', grantPath(a.issuerId, grantId, 'cancel')),
        404,
        'issuer_not_found',
      )
    })
    expectProblem(
      await call(admin, 'POST', grantPath(a.issuerId, 'gr_0000', 'cancel')),
      404,
      'grant_not_found',
    )
  })
})

describe('POST .../grants/{grantId}/resend', () => {
  it('asks for the offer again, audited; again within 10 minutes is 429 with Retry-After, writing nothing', async () => {
    const grantId = await newGrant(a)
    const asked = wallClock.now()
    const first = await call(admin, 'POST', grantPath(a.issuerId, grantId, 'resend'))
    expect(first.status).toBe(200)
    const at = Date.parse((first.body.delivery as { resendRequestedAt: string }).resendRequestedAt)
    expect(at).toBeGreaterThanOrEqual(asked)
    expect(at).toBeLessThanOrEqual(wallClock.now())
    expect((await storedGrant(grantId)).offer?.resendRequestedAt).toBeDefined()
    expect(
      (await auditLog(a.issuerId)).filter((e) => e.target.id === grantId).map((e) => e.action),
    ).toEqual(['grant.resend'])

    await expectGrantUntouched(grantId, async () => {
      const again = await call(admin, 'POST', grantPath(a.issuerId, grantId, 'resend'))
      expectProblem(again, 429, 'resend_too_soon')
      const retryAfter = Number(again.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(600)
    })

    wallClock.advance(10 * 60_000 + 1_000)
    expect((await call(admin, 'POST', grantPath(a.issuerId, grantId, 'resend'))).status).toBe(200)
    expect(
      (await auditLog(a.issuerId)).filter((e) => e.target.id === grantId).map((e) => e.action),
    ).toEqual(['grant.resend', 'grant.resend'])
  })

  it('refuses a closed grant (409) and a viewer (403), writing nothing', async () => {
    const grantId = await newGrant(a)
    await forceState(grantId, 'rejected', 'declined')
    await expectGrantUntouched(grantId, async () => {
      expectProblem(
        await call(admin, 'POST', grantPath(a.issuerId, grantId, 'resend')),
        409,
        'grant_state_conflict',
      )
      expectProblem(
        await call(viewer, 'POST', grantPath(a.issuerId, grantId, 'resend')),
        403,
        'forbidden',
      )
    })
  })
})

describe('POST .../grants/{grantId}/correct-email', () => {
  it('changes the address of an open grant: old links cleared, a timeline line, audited without addresses', async () => {
    const grantId = await newGrant(a)
    await documentClient.send(
      new UpdateCommand({
        TableName: config.tables.grants,
        Key: { grantId },
        UpdateExpression: 'SET #o = :o',
        ExpressionAttributeNames: { '#o': 'offer' },
        ExpressionAttributeValues: { ':o': { delivery: 'failed', tokens: ['a'.repeat(64)] } },
      }),
    )
    const corrected = await call(admin, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {
      email: '  Fixed.Address@Example.com ',
    })
    expect(corrected.status).toBe(200)
    expect(corrected.body).toMatchObject({
      recipient: { email: 'fixed.address@example.com' },
      status: 'reserved',
      delivery: { state: 'pending' },
    })
    expect(corrected.body.history).toEqual([
      expect.objectContaining({ event: 'address', actor: `person:${admin.email}` }),
    ])
    const stored = await storedGrant(grantId)
    expect(stored.recipientKey).toBe('fixed.address@example.com')
    expect(stored.offer?.tokens).toEqual([])
    const [entry] = (await auditLog(a.issuerId)).filter((e) => e.target.id === grantId)
    expect(entry?.action).toBe('grant.correct_email')
    expect(JSON.stringify(entry)).not.toContain('fixed.address')
  })

  it('refuses a bad address (400 naming the field), an accepted grant (409) and a viewer (403), writing nothing', async () => {
    const grantId = await newGrant(a)
    await expectGrantUntouched(grantId, async () => {
      const bad = await call(admin, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {
        email: 'not an address',
      })
      expectProblem(bad, 400, 'validation_failed')
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'email' })])
      expectProblem(
        await call(admin, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {}),
        400,
        'validation_failed',
      )
      expectProblem(
        await call(admin, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {
          email: 'x@example.com',
          extra: 1,
        }),
        400,
        'validation_failed',
      )
      expectProblem(
        await call(viewer, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {
          email: 'x@example.com',
        }),
        403,
        'forbidden',
      )
    })
    await forceState(grantId, 'accepted')
    await expectGrantUntouched(grantId, async () => {
      expectProblem(
        await call(admin, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {
          email: 'x@example.com',
        }),
        409,
        'grant_accepted',
      )
    })
  })
})

describe('PATCH .../programs/{programId}/offer-settings', () => {
  const settings = (programId: string, body: unknown, person: Person = admin) =>
    call(person, 'PATCH', programPath(a.issuerId, programId, 'offer-settings'), body)

  /** Asserts `act` changed neither the program nor the audit log. */
  const expectProgramUntouched = async (programId: string, act: () => Promise<void>) => {
    const [program, audit] = await Promise.all([storedProgram(programId), auditLog(a.issuerId)])
    await act()
    expect(await storedProgram(programId)).toEqual(program)
    expect((await auditLog(a.issuerId)).length).toBe(audit.length)
  }

  it('sets the window, the rules, the description and versioned terms; each change audited', async () => {
    const programId = a.programs.TEST
    const set = await settings(programId, {
      offerDays: 14,
      minAge: 18,
      countries: ['de', 'FR', 'DE'],
      description: 'Shares for our contributors.\nThank you!',
      terms: { text: 'The terms, version one.' },
    })
    expect(set.status).toBe(200)
    expect(set.body).toMatchObject({
      id: programId,
      offerDays: 14,
      minAge: 18,
      countries: ['DE', 'FR'],
      description: 'Shares for our contributors.\nThank you!',
      terms: { version: 1, text: 'The terms, version one.' },
    })
    // The head (read by the grant path) keeps only that there is a text; the text has its own item.
    expect(await storedProgram(programId)).toMatchObject({
      offerDays: 14,
      minAge: 18,
      countries: ['DE', 'FR'],
      terms: { version: 1, hasText: true },
    })
    expect(await storedItem(`${programId}#terms`)).toEqual({
      programId: `${programId}#terms`,
      termsOf: programId,
      version: 1,
      text: 'The terms, version one.',
    })
    const [entry] = (await auditLog(a.issuerId)).filter(
      (e) => e.action === 'program.offer_settings',
    )
    expect(entry).toMatchObject({
      actor: { kind: 'person', email: admin.email },
      target: { type: 'program', id: programId },
      details: { offerDays: 14, minAge: 18, countries: 'DE,FR', termsVersion: 1, terms: 'text' },
    })
    // The audit entry names what changed, not the texts.
    expect(JSON.stringify(entry)).not.toContain('version one')

    // The same terms again keep their version; other terms make the next; a link the one after.
    expect(
      (await settings(programId, { terms: { text: 'The terms, version one.' } })).body.terms,
    ).toEqual({ version: 1, text: 'The terms, version one.' })
    expect((await settings(programId, { terms: { text: 'Version two.' } })).body.terms).toEqual({
      version: 2,
      text: 'Version two.',
    })
    const linked = await settings(programId, {
      terms: { url: 'https://example.com/terms' },
      minAge: null,
      countries: null,
      description: null,
    })
    expect(linked.body).toMatchObject({
      terms: { version: 3, url: 'https://example.com/terms' },
      minAge: null,
      countries: null,
      description: null,
      offerDays: 14,
    })
    const stored = await storedProgram(programId)
    expect(stored.minAge).toBeUndefined()
    expect(stored.countries).toBeUndefined()
    expect(stored.terms).toEqual({ version: 3, url: 'https://example.com/terms' })
    // A link replaces the text: its item is gone with it.
    expect(await storedItem(`${programId}#terms`)).toBeUndefined()
    // The program's GET shows them.
    expect(
      (await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/programs/${programId}`)).body,
    ).toMatchObject({ offerDays: 14, terms: { version: 3 } })
  })

  it('keeps a 20,000-character terms text off the head the grant path reads', async () => {
    const programId = a.programs.LIVE
    const text = `${'Terms of Virtual Shares. '.repeat(800).slice(0, 19_999)}.`
    const set = await settings(programId, { terms: { text } })
    expect(set.status).toBe(200)
    const { version } = (set.body as { terms: { version: number; text: string } }).terms
    expect(set.body).toMatchObject({ terms: { version, text } })
    // The head's size as DynamoDB stores it, read with GetItem: well under one 4 KB read unit.
    const { Item } = await documentClient.send(
      new GetCommand({
        TableName: config.tables.programs,
        Key: { programId },
        ConsistentRead: true,
      }),
    )
    const headBytes = Buffer.byteLength(JSON.stringify(Item))
    expect(headBytes).toBeLessThan(2_000)
    expect(Item?.terms).toMatchObject({ hasText: true })
    expect(Item?.terms.text).toBeUndefined()
    // The same text again keeps its version (compared with the text item, not the head).
    const again = await settings(programId, { terms: { text } })
    expect(again.body.terms).toEqual({ version, text })
    // The program's GET (what the console's form edits) serves the text.
    expect(
      (await call(viewer, 'GET', `/manage/issuers/${a.issuerId}/programs/${programId}`)).body.terms,
    ).toEqual({ version, text })
  })

  it('names every wrong field at once (400) and writes nothing', async () => {
    const programId = a.programs.LIVE
    await expectProgramUntouched(programId, async () => {
      const bad = await settings(programId, {
        offerDays: 0,
        minAge: 12,
        countries: ['DE', 'XX', 7],
        description: 'x'.repeat(2_001),
        terms: { url: 'http://example.com/terms' },
      })
      expectProblem(bad, 400, 'validation_failed')
      expect((bad.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
        'countries[1]',
        'countries[2]',
        'description',
        'minAge',
        'offerDays',
        'terms.url',
      ])
      for (const body of [
        {},
        { offerDays: 366 },
        { offerDays: 1.5 },
        { minAge: 121 },
        { countries: [] },
        { countries: 'DE' },
        { terms: null },
        { terms: { text: 'a', url: 'https://example.com' } },
        { terms: { text: 'x'.repeat(20_001) } },
        { terms: { text: '   ' } },
        { description: 'bad \u0007 bell' },
        { description: 'trojan \u202e source' },
        { terms: { url: 'https://user:pw@example.com/' } },
        { unknown: 1 },
        [],
      ]) {
        expectProblem(await settings(programId, body), 400, 'validation_failed')
      }
    })
  })

  it('takes terms of 20,000 characters (a body past 16 KB)', async () => {
    const text = '€'.repeat(20_000)
    const set = await settings(a.programs.LIVE, { terms: { text } })
    expect(set.status).toBe(200)
    expect((set.body.terms as { text: string }).text).toHaveLength(20_000)
  })

  it('refuses a viewer (403), another issuer (404), writing nothing', async () => {
    await expectProgramUntouched(a.programs.TEST, async () => {
      expectProblem(await settings(a.programs.TEST, { offerDays: 3 }, viewer), 403, 'forbidden')
      expectProblem(
        await call(adminOfB, 'PATCH', programPath(b.issuerId, a.programs.TEST, 'offer-settings'), {
          offerDays: 3,
        }),
        404,
        'program_not_found',
      )
    })
  })
})

describe('GET /manage/issuers/{issuerId}/inbox: the TEST inbox', () => {
  it('lists the issuer’s own messages newest first, a page at a time', async () => {
    const issuer = await newIssuer()
    const reader = await signUpPerson()
    await addMember(issuer.issuerId, reader, 'viewer')
    const inbox = new DynamoDbInboxStore(documentClient, config.tables)
    const start = Date.parse('2026-01-01T00:00:00.000Z')
    for (let i = 0; i < 3; i++) {
      await inbox.put(
        {
          issuerId: issuer.issuerId,
          grantId: `gr_${String(i).padStart(26, '0')}`,
          to: `r${i}@example.com`,
          subject: `Offer ${i}`,
          text: `text ${i}`,
          html: `<p>html ${i}</p>`,
        },
        start + i * 1000,
      )
    }
    await inbox.put(
      {
        issuerId: b.issuerId,
        grantId: 'gr_x',
        to: 'o@example.com',
        subject: 'Other',
        text: '',
        html: '',
      },
      start,
    )
    const path = `/manage/issuers/${issuer.issuerId}/inbox`
    const first = await call(reader, 'GET', `${path}?limit=2`)
    expect(first.status).toBe(200)
    expect((first.body.data as { subject: string }[]).map((m) => m.subject)).toEqual([
      'Offer 2',
      'Offer 1',
    ])
    expect(first.body.data).toEqual([
      expect.objectContaining({ to: 'r2@example.com', html: '<p>html 2</p>', text: 'text 2' }),
      expect.anything(),
    ])
    const next = await call(reader, 'GET', `${path}?limit=2&cursor=${first.body.nextCursor}`)
    expect((next.body.data as { subject: string }[]).map((m) => m.subject)).toEqual(['Offer 0'])
    expect(next.body.nextCursor).toBeNull()

    expectProblem(await call(reader, 'GET', `${path}?cursor=bogus`), 400, 'validation_failed')
    expectProblem(await call(reader, 'GET', `${path}?limit=0`), 400, 'validation_failed')
    expectProblem(await call(adminOfB, 'GET', path), 404, 'issuer_not_found')
  })
})

describe('POST .../programs/{programId}/offer-preview', () => {
  it('renders the e-mail a grant would send, for a viewer, writing nothing', async () => {
    const before = await programState(a.programs.TEST)
    const preview = await call(
      viewer,
      'POST',
      programPath(a.issuerId, a.programs.TEST, 'offer-preview'),
      {
        recipient: { email: 'Ann@Example.com', name: 'Ann' },
        reason: 'Referral bonus',
        amount: 1234,
      },
    )
    expect(preview.status).toBe(200)
    expect(preview.body).toEqual({
      subject: expect.any(String),
      text: expect.stringContaining('Referral bonus'),
      html: expect.stringContaining('Referral bonus'),
    })
    expect(preview.body.text).toMatch(/1,234|1 234|1234/)
    const after = await programState(a.programs.TEST)
    expect(after.grants.length).toBe(before.grants.length)
    expect(after.issued).toBe(before.issued)
  })

  it('checks the body with the grant API’s rules (400) and the program’s issuer (404)', async () => {
    const bad = await call(
      admin,
      'POST',
      programPath(a.issuerId, a.programs.TEST, 'offer-preview'),
      {
        recipient: { email: 'nope' },
        reason: '',
        amount: 0,
      },
    )
    expectProblem(bad, 400, 'validation_failed')
    expect((bad.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'amount',
      'reason',
      'recipient.email',
    ])
    expectProblem(
      await call(
        adminOfB,
        'POST',
        programPath(b.issuerId, a.programs.TEST, 'offer-preview'),
        grantBody(),
      ),
      404,
      'program_not_found',
    )
  })
})

describe('IAM: each route does only what functions/routes.ts grants it', () => {
  it('holds for every route of this file', async () => {
    const grantId = await newGrant(a, 'LIVE')
    const runs: [string, () => Promise<unknown>][] = [
      ['ManageGetGrant', () => call(viewer, 'GET', grantPath(a.issuerId, grantId))],
      ['ManageResendOffer', () => call(admin, 'POST', grantPath(a.issuerId, grantId, 'resend'))],
      [
        'ManageCorrectEmail',
        () =>
          call(admin, 'POST', grantPath(a.issuerId, grantId, 'correct-email'), {
            email: 'iam@example.com',
          }),
      ],
      ['ManageCancelGrant', () => call(admin, 'POST', grantPath(a.issuerId, grantId, 'cancel'))],
      [
        'ProgramOfferSettings',
        () =>
          call(admin, 'PATCH', programPath(a.issuerId, a.programs.LIVE, 'offer-settings'), {
            offerDays: 20,
            terms: { text: `IAM ${Math.random()}` },
          }),
      ],
      ['ListInbox', () => call(viewer, 'GET', `/manage/issuers/${a.issuerId}/inbox`)],
      [
        'OfferPreview',
        () =>
          call(
            viewer,
            'POST',
            programPath(a.issuerId, a.programs.LIVE, 'offer-preview'),
            grantBody(),
          ),
      ],
    ]
    for (const [id, run] of runs) {
      const access = recordAccess(dynamodb)
      let status: number
      try {
        status = ((await run()) as { status: number }).status
      } finally {
        access.stop()
      }
      expect({ id, status }).toEqual({ id, status: 200 })
      const declared = declaredAccess(id)
      for (const line of access.seen)
        expect({ id, line, allowed: declared.has(line) }).toEqual({ id, line, allowed: true })
    }
  })
})
