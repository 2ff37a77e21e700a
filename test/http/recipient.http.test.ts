import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { OFFER_MAIL_QUEUE } from '../../functions/consumers'
import { makeGrantLife, RECIPIENT_LIMITS, RESEND_GAP_MS } from '../../functions/core/grant-life'
import type { GrantRecord } from '../../functions/domain/grant'
import type { ProgramTerms } from '../../functions/domain/program'
import {
  hashOfferToken,
  MAX_OFFER_TOKENS,
  newOfferToken,
} from '../../functions/domain/recipient-offer'
import { LINKS_ANSWER } from '../../functions/domain/recipient-request.schema'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbProgramStore } from '../../functions/stores/programs.dynamodb'
import { INDEX } from '../../functions/table-schema'
import { makeOfferMailerHandler, offerMailerOf } from '../../functions/wiring/offer-mailer.consumer'
import { LocalQueue, localQueueSender, pollOnce } from '../../local/queue'
import {
  accessDuring,
  consumerAccess,
  declaredAccess,
  recordAccess,
} from '../manage/grants-support'
import {
  type Call,
  expectNothingWritten,
  expectProblem,
  type Issuer,
  newIssuer,
  postGrant,
  programState,
  request,
} from '../support/api'
import { useApi } from '../support/api-harness'
import {
  config,
  documentClient,
  dynamodb,
  runtime,
  runtimeWith,
  wallClock,
} from '../support/runtime'

/**
 * The recipient's public routes (`POST /recipient/...`) against the local server and DynamoDB
 * Local: no key, no sign-in, the link token in the body. Tokens are made as the mail worker makes
 * them (a new token, its hash on the grant and its item: DynamoDbGrantLifeStore.addOfferToken).
 */
/**
 * "Send me a new link" only queues the address: the route's OfferMail sender is a local queue
 * (SQS's semantics) that this file hands to the real OfferMailer's SQS handler when it says so.
 */
const offerMail = new LocalQueue(OFFER_MAIL_QUEUE, wallClock)
const api = useApi({
  runtime: { ...runtime, queues: { [OFFER_MAIL_QUEUE.id]: localQueueSender(offerMail) } },
})
const store = new DynamoDbGrantLifeStore(documentClient, config.tables)
const mailRuntime = runtimeWith({
  RECIPIENT_ORIGIN: 'https://console.example.com',
  MAIL_SINK_FILE: join(mkdtempSync(join(tmpdir(), 'recipient-links-')), 'mail.jsonl'),
})
const offerMailer = offerMailerOf(mailRuntime)
const offerMailerHandler = makeOfferMailerHandler(mailRuntime)
/** Every queued link request through the OfferMailer, as Lambda's SQS poller would hand them. */
const deliverLinkRequests = async () => {
  for (;;) {
    const polled = await pollOnce(offerMail, offerMailerHandler, 10)
    expect(polled.failed).toBe(0)
    if (polled.received === 0) return
  }
}

const post = (path: string, body: unknown) =>
  request(api.baseUrl, 'POST', path, {
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

const life = makeGrantLife({ store, clock: () => wallClock.now() })

/**
 * A link for the grant, as the offer mail makes it (the core's issueOfferLink, valid until the
 * offer's end). Another test file's pipeline (the run's tables and stream are shared) may touch
 * the same offer at the same moment: the core then makes the link again from a fresh read.
 */
const linkFor = async (grantId: string) => {
  const link = await life.issueOfferLink(grantId)
  if (link === undefined) throw new Error(`no link for ${grantId}: not open, or its offer ended`)
  return link.token
}

/** The program's offer settings, written as the management route would leave them. */
const setOfferSettings = (
  programId: string,
  settings: { description?: string; minAge?: number; countries?: string[]; terms?: ProgramTerms },
) => {
  const entries = Object.entries(settings)
  return documentClient.send(
    new UpdateCommand({
      TableName: config.tables.programs,
      Key: { programId },
      UpdateExpression: `SET ${entries.map(([k]) => `#${k} = :${k}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([k]) => [`#${k}`, k])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([k, v]) => [`:${k}`, v])),
    }),
  )
}

const grantTo = async (
  issuer: Issuer,
  email: string,
  amount = 5,
  mode: 'LIVE' | 'TEST' = 'LIVE',
) => {
  const call = await postGrant(api.baseUrl, issuer.programs[mode], issuer.keys[mode], {
    recipient: { email, name: 'Ann Example' },
    reason: 'Referral bonus',
    amount,
  })
  expect(call.status).toBe(201)
  return call.body.id as string
}

const TERMS: ProgramTerms = { version: 3, text: 'The shares are virtual.\nThey vest over a year.' }
let issuer: Issuer
let unique = 0
const address = (name: string) => `${name}-${Date.now()}-${unique++}@example.com`

beforeAll(async () => {
  issuer = await newIssuer({ pool: 1_000 })
  await setOfferSettings(issuer.programs.LIVE, {
    description: 'Shares for people who bring friends.',
    minAge: 18,
    countries: ['DE', 'FR'],
    terms: TERMS,
  })
})

afterEach(() => wallClock.reset())

/** What two answers that must not be told apart have in common: all but the request id. */
const sameAnswer = (call: Call) => {
  const { requestId: _, ...rest } = call.body
  return { status: call.status, type: call.headers.get('content-type'), body: rest }
}

describe('POST /recipient/offer', () => {
  it('shows the offer without a key or a sign-in, and changes nothing', async () => {
    const email = address('view')
    const grantId = await grantTo(issuer, email, 7)
    const token = await linkFor(grantId)
    const before = await store.findGrant(grantId)
    const call = await post('/recipient/offer', { token })
    expect(call.status).toBe(200)
    expect(call.headers.get('content-type')).toBe('application/json')
    expect(call.headers.get('cache-control')).toBe('no-store')
    expect(call.body).toEqual({
      email,
      grants: [
        {
          grantId,
          programId: issuer.programs.LIVE,
          programName: 'live program',
          description: 'Shares for people who bring friends.',
          amount: 7,
          reason: 'Referral bonus',
          state: 'reserved',
          expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          mode: 'LIVE',
          fields: { name: true, dateOfBirth: true, country: true },
          countries: ['DE', 'FR'],
          minAge: 18,
          terms: TERMS,
          identified: false,
        },
      ],
    })
    // Opening the page (what a mail scanner does) leaves the grant as it was.
    expect(await store.findGrant(grantId)).toEqual(before)
  })

  it('serves a terms text kept in its own item (as offer settings write it) and a legacy head text', async () => {
    // The LIVE program's head holds its text (written before the text had its own item): shown above.
    // The TEST program: written through the programs store, as the management route does.
    const text = 'Version one of the TEST terms.\nRead them.'
    const programs = new DynamoDbProgramStore(documentClient, config.tables)
    const head = await programs.getProgram(issuer.programs.TEST)
    expect(
      await programs.setOfferSettings(issuer.programs.TEST, {
        set: { terms: { version: (head?.terms?.version ?? 0) + 1, text } },
        remove: [],
        termsVersion: head?.terms?.version,
      }),
    ).toEqual({ kind: 'changed' })
    const email = address('terms-item')
    const grantId = await grantTo(issuer, email, 2, 'TEST')
    const call = await post('/recipient/offer', { token: await linkFor(grantId) })
    expect(call.status).toBe(200)
    expect(call.body).toMatchObject({
      grants: [{ grantId, terms: { version: (head?.terms?.version ?? 0) + 1, text } }],
    })
  })

  it("shows every open grant of the address at this issuer, and no one else's", async () => {
    const email = address('several')
    const first = await grantTo(issuer, email, 2)
    const second = await grantTo(issuer, email, 3)
    await grantTo(issuer, address('someone-else'), 4)
    const other = await newIssuer()
    const elsewhere = await grantTo(other, email, 9)
    const call = await post('/recipient/offer', { token: await linkFor(first) })
    expect(call.status).toBe(200)
    const ids = (call.body.grants as { grantId: string }[]).map((g) => g.grantId).sort()
    expect(ids).toEqual([first, second].sort())
    expect(ids).not.toContain(elsewhere)
    expect(call.body.email).toBe(email)
  })

  it('answers an unknown, malformed, expired or used link exactly the same', async () => {
    const used = await grantTo(issuer, address('used'))
    const usedToken = await linkFor(used)
    expect((await post('/recipient/decline', { token: usedToken, grantId: used })).status).toBe(200)
    const expiring = await grantTo(issuer, address('expired'))
    const expiredToken = await linkFor(expiring)
    // The link ends with the offer.
    const { expiresAt } = (await store.findGrant(expiring)) as GrantRecord
    wallClock.advance(Date.parse(expiresAt as string) - Date.now() + 60_000)
    const calls = [
      await post('/recipient/offer', { token: newOfferToken().token }),
      await post('/recipient/offer', { token: 'not-a-token' }),
      await post('/recipient/offer', { token: usedToken }),
      await post('/recipient/offer', { token: expiredToken }),
    ]
    for (const call of calls) expectProblem(call, 404, 'offer_link_invalid')
    const [first, ...rest] = calls.map(sameAnswer)
    for (const answer of rest) expect(answer).toEqual(first)
  })

  it('refuses a body without a token (400, naming the field)', async () => {
    for (const body of [{}, { token: 5 }, [], { token: 'x', extra: 1 }]) {
      const call = await post('/recipient/offer', body)
      expectProblem(call, 400, 'validation_failed')
      expect((call.body.errors as { field: string }[]).length).toBeGreaterThan(0)
    }
  })

  it('answers another method 405 with Allow: POST, and a body that is not JSON 400/415', async () => {
    const get = await request(api.baseUrl, 'GET', '/recipient/offer')
    expectProblem(get, 405, 'method_not_allowed')
    expect(get.headers.get('allow')).toBe('POST')
    expectProblem(await post('/recipient/offer', '{"token":'), 400, 'malformed_json')
    const form = await request(api.baseUrl, 'POST', '/recipient/offer', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=abc',
    })
    expectProblem(form, 415, 'unsupported_media_type')
  })
})

describe('identify, accept, decline', () => {
  it('walks identify then accept: offered, then accepted with the terms version and the time', async () => {
    const email = address('accept')
    const grantId = await grantTo(issuer, email, 4)
    const token = await linkFor(grantId)
    const identified = await post('/recipient/identify', {
      token,
      grantId,
      name: '  Ann Example ',
      dateOfBirth: '1990-05-17',
      country: 'de',
    })
    expect(identified.status).toBe(200)
    expect(identified.headers.get('cache-control')).toBe('no-store')
    expect(identified.body.grants).toEqual([
      expect.objectContaining({ grantId, state: 'offered', identified: true }),
    ])
    const stored = (await store.findGrant(grantId)) as GrantRecord
    // Only the result of the age rule and the country: never the date of birth.
    expect(stored.identity).toEqual({
      name: 'Ann Example',
      country: 'DE',
      age: { atLeast: 18, passed: true },
      at: expect.any(String),
    })
    // Nowhere else either, in any form: no key about birth, no value holding the date or its year
    // (a search of the whole item for "1990" also hit a hash that happened to contain it).
    const leaves: Array<[string, unknown]> = []
    const walk = (value: unknown, key: string) => {
      if (value !== null && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) walk(v, k)
      } else leaves.push([key, value])
    }
    walk(stored, '')
    expect(leaves.filter(([key]) => /birth|dob/i.test(key))).toEqual([])
    expect(
      leaves.filter(
        ([, value]) =>
          value === 1990 ||
          (typeof value === 'string' && /1990-05-17|19900517|17\/05\/1990/.test(value)),
      ),
    ).toEqual([])

    const accepted = await post('/recipient/accept', { token, grantId, termsVersion: 3 })
    expect(accepted.status).toBe(200)
    expect(accepted.body.grants).toEqual([
      expect.objectContaining({ grantId, state: 'accepted', acceptedAt: expect.any(String) }),
    ])
    expect((await store.findGrant(grantId))?.acceptance).toEqual({
      termsVersion: 3,
      at: expect.any(String),
    })
    // The integrator's read says so too.
    const read = await request(
      api.baseUrl,
      'GET',
      `/programs/${issuer.programs.LIVE}/grants/${grantId}`,
      { headers: { 'x-api-key': issuer.keys.LIVE } },
    )
    expect(read.body.status).toBe('accepted')
  })

  it('accept before identify is 409 offer_not_identified; an old terms version is 400; both write nothing', async () => {
    const grantId = await grantTo(issuer, address('early'))
    const token = await linkFor(grantId)
    const before = await store.findGrant(grantId)
    await expectNothingWritten(issuer.programs.LIVE, async () => {
      expectProblem(
        await post('/recipient/accept', { token, grantId, termsVersion: 3 }),
        409,
        'offer_not_identified',
      )
    })
    const ok = { token, grantId, name: 'Ann', dateOfBirth: '1990-01-01', country: 'FR' }
    expect((await post('/recipient/identify', ok)).status).toBe(200)
    const old = await post('/recipient/accept', { token, grantId, termsVersion: 2 })
    expectProblem(old, 400, 'validation_failed')
    expect(old.body.errors).toEqual([{ field: 'termsVersion', message: expect.any(String) }])
    expect((await store.findGrant(grantId))?.status).toBe('offered')
    expect(before?.status).toBe('reserved')
  })

  it('an ineligible country or age rejects the grant and gives its shares back', async () => {
    for (const [who, body, reason] of [
      ['country', { dateOfBirth: '1990-01-01', country: 'US' }, 'ineligible_country'],
      [
        'age',
        { dateOfBirth: `${new Date().getUTCFullYear() - 10}-01-01`, country: 'DE' },
        'ineligible_age',
      ],
    ] as const) {
      const grantId = await grantTo(issuer, address(`ineligible-${who}`), 6)
      const token = await linkFor(grantId)
      const before = await programState(issuer.programs.LIVE)
      const call = await post('/recipient/identify', { token, grantId, name: 'Bo', ...body })
      expect(call.status).toBe(200)
      expect(call.body.grants).toEqual([
        expect.objectContaining({ grantId, state: 'rejected', rejectionReason: reason }),
      ])
      const after = await programState(issuer.programs.LIVE)
      expect(after.issued).toBe(before.issued - 6)
    }
  })

  it('decline rejects the grant (declined) and gives its shares back, once', async () => {
    const grantId = await grantTo(issuer, address('decline'), 8)
    const token = await linkFor(grantId)
    const before = await programState(issuer.programs.LIVE)
    const call = await post('/recipient/decline', { token, grantId })
    expect(call.status).toBe(200)
    expect(call.body.grants).toEqual([
      expect.objectContaining({ grantId, state: 'rejected', rejectionReason: 'declined' }),
    ])
    expect((await programState(issuer.programs.LIVE)).issued).toBe(before.issued - 8)
    // The link is used now: the same answer as any unknown link, and the pool stays exact.
    expectProblem(await post('/recipient/decline', { token, grantId }), 404, 'offer_link_invalid')
    expect((await programState(issuer.programs.LIVE)).issued).toBe(before.issued - 8)
  })

  it("never acts on another address's grant with this link", async () => {
    const mine = await grantTo(issuer, address('mine'))
    const theirs = await grantTo(issuer, address('theirs'))
    const token = await linkFor(mine)
    const before = await store.findGrant(theirs)
    await expectNothingWritten(issuer.programs.LIVE, async () => {
      for (const [path, extra] of [
        ['/recipient/identify', { name: 'Ann', dateOfBirth: '1990-01-01', country: 'DE' }],
        ['/recipient/accept', { termsVersion: 3 }],
        ['/recipient/decline', {}],
      ] as const) {
        const call = await post(path, { token, grantId: theirs, ...extra })
        expectProblem(call, 404, 'offer_link_invalid')
      }
    })
    expect(await store.findGrant(theirs)).toEqual(before)
  })

  describe('field checks: 400 validation_failed naming the field, nothing written', () => {
    let grantId: string
    let token: string
    beforeAll(async () => {
      grantId = await grantTo(issuer, address('fields'))
      token = await linkFor(grantId)
    })
    const valid = () => ({ token, grantId, name: 'Ann', dateOfBirth: '1990-01-01', country: 'DE' })
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)

    it.each([
      ['name', { name: '' }],
      ['name', { name: '   ' }],
      ['name', { name: 'a'.repeat(201) }],
      ['name', { name: 'Ann\u0007' }],
      ['name', { name: 'Ann\u202e' }],
      ['name', { name: 42 }],
      ['dateOfBirth', { dateOfBirth: '1990-02-30' }],
      ['dateOfBirth', { dateOfBirth: '17/05/1990' }],
      ['dateOfBirth', { dateOfBirth: tomorrow }],
      ['dateOfBirth', { dateOfBirth: '1899-12-31' }],
      ['country', { country: 'XX' }],
      ['country', { country: 'DEU' }],
      ['country', { country: 'EU' }],
      ['grantId', { grantId: '' }],
      ['color', { color: 'blue' }],
    ])('identify: %s in %j', async (field, change) => {
      await expectNothingWritten(issuer.programs.LIVE, async () => {
        const call = await post('/recipient/identify', { ...valid(), ...change })
        expectProblem(call, 400, 'validation_failed')
        expect((call.body.errors as { field: string }[]).map((e) => e.field)).toEqual([field])
      })
      expect((await store.findGrant(grantId))?.status).toBe('reserved')
    })

    it('identify without the date of birth or country the program needs', async () => {
      await expectNothingWritten(issuer.programs.LIVE, async () => {
        const { dateOfBirth: _, country: __, ...bare } = valid()
        const call = await post('/recipient/identify', bare)
        expectProblem(call, 400, 'validation_failed')
        expect((call.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
          'country',
          'dateOfBirth',
        ])
      })
    })

    it.each([
      [{ termsVersion: '3' }],
      [{ termsVersion: 1.5 }],
      [{ termsVersion: -1 }],
      [{ termsVersion: undefined }],
    ])('accept: termsVersion in %j', async (change) => {
      const call = await post('/recipient/accept', { token, grantId, ...change })
      expectProblem(call, 400, 'validation_failed')
      expect(call.body.errors).toEqual([{ field: 'termsVersion', message: expect.any(String) }])
    })
  })

  it('an offer past its end cannot be accepted: the link is invalid then', async () => {
    const grantId = await grantTo(issuer, address('late'))
    const token = await linkFor(grantId)
    const ok = { token, grantId, name: 'Ann', dateOfBirth: '1990-01-01', country: 'DE' }
    expect((await post('/recipient/identify', ok)).status).toBe(200)
    const grant = (await store.findGrant(grantId)) as GrantRecord
    wallClock.advance(Date.parse(grant.expiresAt as string) - Date.now() + 1_000)
    await expectNothingWritten(issuer.programs.LIVE, async () => {
      expectProblem(
        await post('/recipient/accept', { token, grantId, termsVersion: 3 }),
        404,
        'offer_link_invalid',
      )
    })
    expect((await store.findGrant(grantId))?.status).toBe('offered')
  })
})

describe('rate limits', () => {
  it(`after ${RECIPIENT_LIMITS.token.limit} attempts with one token: 429 too_many_attempts with Retry-After`, async () => {
    // One window of the limit: the clock stands still while the attempts are made.
    wallClock.freeze()
    const grantId = await grantTo(issuer, address('limited'))
    const token = await linkFor(grantId)
    for (let i = 0; i < RECIPIENT_LIMITS.token.limit; i++) {
      expect((await post('/recipient/offer', { token })).status).toBe(200)
    }
    const limited = await post('/recipient/offer', { token })
    expectProblem(limited, 429, 'too_many_attempts')
    const retryAfter = Number(limited.headers.get('retry-after'))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(RECIPIENT_LIMITS.token.windowMs / 1000)
    // Steps are limited too, and write nothing.
    await expectNothingWritten(issuer.programs.LIVE, async () => {
      expectProblem(await post('/recipient/decline', { token, grantId }), 429, 'too_many_attempts')
    })
    // An unknown token is counted the same way: guessing is as slow as using.
    const guess = newOfferToken().token
    for (let i = 0; i < RECIPIENT_LIMITS.token.limit; i++) {
      expect((await post('/recipient/offer', { token: guess })).status).toBe(404)
    }
    expectProblem(await post('/recipient/offer', { token: guess }), 429, 'too_many_attempts')
    // The next window opens the link again.
    wallClock.advance(retryAfter * 1000)
    expect((await post('/recipient/offer', { token })).status).toBe(200)
  })
})

describe('POST /recipient/links', () => {
  it('answers 202 with the same body whether or not the address holds an offer', async () => {
    const email = address('links')
    const grantId = await grantTo(issuer, email)
    const before = (await store.findGrant(grantId)) as GrantRecord
    const holder = await post('/recipient/links', { email: ` ${email.toUpperCase()} ` })
    const nobody = await post('/recipient/links', { email: address('nobody') })
    for (const call of [holder, nobody]) {
      expect(call.status).toBe(202)
      expect(call.body).toEqual(LINKS_ANSWER)
      expect(call.headers.get('cache-control')).toBe('no-store')
    }
    // The mail worker then asks for the holder's open grant again, as the recipient's request
    // (the stream's reader mails the new link).
    await deliverLinkRequests()
    const after = (await store.findGrant(grantId)) as GrantRecord
    expect(before.offer?.resendRequestedAt).toBeUndefined()
    expect(after.offer?.resendRequestedAt).toEqual(expect.any(String))
    expect(after.offer?.resendRequestedBy).toBe('recipient')
  })

  it('answers before anything the address holds is read: no DynamoDB call, one queued request', async () => {
    const email = address('timing')
    const grantId = await grantTo(issuer, email)
    const access = recordAccess(dynamodb)
    let call: Call
    try {
      call = await post('/recipient/links', { email: ` ${email.toUpperCase()}` })
    } finally {
      access.stop()
    }
    expect({ status: call.status, body: call.body }).toEqual({ status: 202, body: LINKS_ANSWER })
    // Not one read or write behind the answer: its time cannot depend on the address's grants.
    expect([...access.seen]).toEqual([])
    expect((await store.findGrant(grantId))?.offer?.resendRequestedAt).toBeUndefined()
    const queued = offerMail.receive(10)
    expect(queued.map((m) => JSON.parse(m.body))).toEqual([
      { kind: 'link-request', email, at: expect.any(String) },
    ])
    for (const m of queued) offerMail.delete(m.receiptHandle)
  })

  it('past the limit per address: still the same 202, and nothing more is asked', async () => {
    // At the start of one window of the limit, the clock moved only by the test.
    const { windowMs, limit } = RECIPIENT_LIMITS.address
    wallClock.freeze(Math.floor(Date.now() / windowMs) * windowMs + 1_000)
    const flooded = address('flood')
    const control = address('control')
    const [floodedGrant, controlGrant] = [
      await grantTo(issuer, flooded),
      await grantTo(issuer, control),
    ]
    const links = async (email: string) => {
      const call = await post('/recipient/links', { email })
      expect({ status: call.status, body: call.body }).toEqual({ status: 202, body: LINKS_ANSWER })
      await deliverLinkRequests()
    }
    const askedAt = async (grantId: string) =>
      (await store.findGrant(grantId))?.offer?.resendRequestedAt
    for (let i = 0; i < limit; i++) await links(flooded)
    await links(control)
    const first = { flooded: await askedAt(floodedGrant), control: await askedAt(controlGrant) }
    expect(first.flooded).toEqual(expect.any(String))
    // Past the resend gap (10 minutes), in the same window: only the limit can refuse now.
    wallClock.advance(11 * 60_000)
    await links(flooded)
    await links(control)
    expect(await askedAt(floodedGrant)).toBe(first.flooded)
    expect(await askedAt(controlGrant)).not.toBe(first.control)
  })

  it.each([
    [{ email: 'not-an-address' }],
    [{ email: '' }],
    [{ email: 5 }],
    [{}],
    [{ email: 'ann@example.com', token: 'x' }],
  ])('refuses %j with 400 naming the field', async (body) => {
    const call = await post('/recipient/links', body)
    expectProblem(call, 400, 'validation_failed')
    expect((call.body.errors as unknown[]).length).toBeGreaterThan(0)
  })
})

describe('what a link survives', () => {
  it("other issuers' grants to the address: 60 TEST grants after it leave its link, a resend and a new link working", async () => {
    const email = address('target')
    const grantId = await grantTo(issuer, email)
    const token = await linkFor(grantId)
    expect((await post('/recipient/offer', { token })).status).toBe(200)
    // Another issuer, with its own TEST key, sends 60 grants of 1 share to the same address.
    const other = await newIssuer({ pool: 1_000 })
    // Ten at a time: their order among themselves is no part of what the link must survive.
    for (let i = 0; i < 60; i += 10) {
      await Promise.all(Array.from({ length: 10 }, () => grantTo(other, email, 1, 'TEST')))
    }
    const shown = async (link: string) => {
      const call = await post('/recipient/offer', { token: link })
      expect(call.status).toBe(200)
      return (call.body.grants as { grantId: string }[]).map((g) => g.grantId)
    }
    // The link: this issuer's grant, and nothing of the other's.
    expect(await shown(token)).toEqual([grantId])
    // The issuer's resend: its new link opens the offer too.
    await life.resend({ grantId, issuerId: issuer.issuerId, actor: { kind: 'operator' } })
    expect(await shown(await linkFor(grantId))).toEqual([grantId])
    // The recipient's "send me a new link", past the resend gap: this grant is asked for again,
    // and the link its mail makes works.
    wallClock.advance(RESEND_GAP_MS + 1_000)
    expect((await post('/recipient/links', { email })).status).toBe(202)
    await deliverLinkRequests()
    expect((await store.findGrant(grantId))?.offer?.resendRequestedBy).toBe('recipient')
    const relinked = await offerMailer.handle({ kind: 'offer', grantId, cause: 'relink' })
    expect(relinked.result).toBe('sent')
    const tokens = (await store.findGrant(grantId))?.offer?.tokens ?? []
    expect(tokens).toHaveLength(3)
    // The newest link (the one just mailed) opens the offer, and so does the first.
    const fresh = await linkFor(grantId)
    expect(await shown(fresh)).toEqual([grantId])
    expect(await shown(token)).toEqual([grantId])
    // And acting on it works: identify, then accept.
    const identify = await post('/recipient/identify', {
      token,
      grantId,
      name: 'Ann Example',
      dateOfBirth: '1990-01-01',
      country: 'DE',
    })
    expect(identify.status).toBe(200)
  })

  it("outsiders' requests: five new links asked for the address never push its first link out", async () => {
    const { windowMs, limit } = RECIPIENT_LIMITS.address
    wallClock.freeze(Math.floor(Date.now() / windowMs) * windowMs + 1_000)
    const email = address('evict')
    const grantId = await grantTo(issuer, email)
    const first = await linkFor(grantId)
    const mailed: string[] = []
    // Each request after the resend gap, as many as the hour allows; each one's mail made as the
    // stream's reader would have it made (offer / relink).
    for (let i = 0; i < limit; i++) {
      wallClock.advance(RESEND_GAP_MS + 1_000)
      expect((await post('/recipient/links', { email })).status).toBe(202)
      await deliverLinkRequests()
      const grant = (await store.findGrant(grantId)) as GrantRecord
      if (grant.offer?.resendRequestedAt === new Date(wallClock.now()).toISOString()) {
        mailed.push((await offerMailer.handle({ kind: 'offer', grantId, cause: 'relink' })).result)
      }
    }
    // The first link and four new ones: the most a grant keeps; a fifth is not asked for.
    expect(mailed).toEqual(Array(MAX_OFFER_TOKENS - 1).fill('sent'))
    const tokens = (await store.findGrant(grantId))?.offer?.tokens ?? []
    expect(tokens).toHaveLength(MAX_OFFER_TOKENS)
    expect(tokens[0]).toBe(hashOfferToken(first))
    expect((await post('/recipient/offer', { token: first })).status).toBe(200)
    // A relink message that arrives anyway (a request raced the count) makes no link either.
    expect((await offerMailer.handle({ kind: 'offer', grantId, cause: 'relink' })).result).toBe(
      'not_open',
    )
    expect((await store.findGrant(grantId))?.offer?.tokens).toEqual(tokens)
    expect((await post('/recipient/offer', { token: first })).status).toBe(200)
    // The issuer's own resend still mails a link, pushing out the oldest (an issuer's choice).
    expect((await offerMailer.handle({ kind: 'offer', grantId, cause: 'resend' })).result).toBe(
      'sent',
    )
    expectProblem(await post('/recipient/offer', { token: first }), 404, 'offer_link_invalid')
  })
})

describe('IAM: each function makes exactly the DynamoDB calls its route declares', () => {
  /** What the calls `act` makes need, as IAM actions (nothing else may use the client meanwhile). */
  const recorded = (act: () => Promise<void>) => accessDuring(dynamodb, act)
  const declared = (id: string) => [...declaredAccess(id)].sort()
  const identity = { name: 'Ann', dateOfBirth: '1990-01-01', country: 'DE' }

  it('RecipientOffer, RecipientAccept: a view; identify then accept', async () => {
    const grantId = await grantTo(issuer, address('iam-accept'))
    const token = await linkFor(grantId)
    expect(
      await recorded(async () => {
        expect((await post('/recipient/offer', { token })).status).toBe(200)
      }),
    ).toEqual(declared('RecipientOffer'))
    expect((await post('/recipient/identify', { token, grantId, ...identity })).status).toBe(200)
    expect(
      await recorded(async () => {
        expect((await post('/recipient/accept', { token, grantId, termsVersion: 3 })).status).toBe(
          200,
        )
      }),
    ).toEqual(declared('RecipientAccept'))
  })

  it('RecipientIdentify: eligible, then ineligible (the shares go back)', async () => {
    const [eligible, ineligible] = [
      await grantTo(issuer, address('iam-ok')),
      await grantTo(issuer, address('iam-no')),
    ]
    const tokens = [await linkFor(eligible), await linkFor(ineligible)]
    expect(
      await recorded(async () => {
        const ok = { token: tokens[0], grantId: eligible, ...identity }
        expect((await post('/recipient/identify', ok)).status).toBe(200)
        const no = { token: tokens[1], grantId: ineligible, ...identity, country: 'US' }
        expect((await post('/recipient/identify', no)).status).toBe(200)
      }),
    ).toEqual(declared('RecipientIdentify'))
  })

  it('RecipientDecline', async () => {
    const grantId = await grantTo(issuer, address('iam-decline'))
    const token = await linkFor(grantId)
    expect(
      await recorded(async () => {
        expect((await post('/recipient/decline', { token, grantId })).status).toBe(200)
      }),
    ).toEqual(declared('RecipientDecline'))
  })

  it('RecipientLinks: nothing; the OfferMailer then makes only calls its consumer declares', async () => {
    const email = address('iam-links')
    await grantTo(issuer, email)
    expect(
      await recorded(async () => {
        expect((await post('/recipient/links', { email })).status).toBe(202)
      }),
    ).toEqual(declared('RecipientLinks'))
    const allowed = consumerAccess('OfferMailer')
    const made = await recorded(deliverLinkRequests)
    expect(made).toEqual(
      expect.arrayContaining([
        'grants dynamodb:UpdateItem',
        `grants/index/${INDEX.grantsByRecipient} dynamodb:Query`,
      ]),
    )
    expect(made.filter((line) => !allowed.has(line))).toEqual([])
  })
})

it('keeps token hashes, never tokens', async () => {
  const grantId = await grantTo(issuer, address('hash'))
  const token = await linkFor(grantId)
  const stored = JSON.stringify(await store.findGrant(grantId))
  expect(stored).not.toContain(token)
  expect(stored).toContain(hashOfferToken(token))
})
