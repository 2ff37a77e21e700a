import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { UpdateCommand } from '@aws-sdk/lib-dynamodb'
import { parse } from 'csv-parse/sync'
import { OFFER_MAIL_QUEUE } from '../../functions/consumers'
import { makeGrantLife, RECIPIENT_LIMITS } from '../../functions/core/grant-life'
import { HOLDINGS_CSV_COLUMNS } from '../../functions/domain/holdings'
import { hashOfferToken } from '../../functions/domain/recipient-offer'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbInboxStore } from '../../functions/stores/inbox.dynamodb'
import { makeOfferMailerHandler } from '../../functions/wiring/offer-mailer.consumer'
import { LocalQueue, localQueueSender, pollOnce } from '../../local/queue'
import { accessDuring, consumerAccess, declaredAccess } from '../manage/grants-support'
import * as support from '../support/api'
import { useApi } from '../support/api-harness'
import { contractCheck } from '../support/contract-check'
import * as testRuntime from '../support/runtime'

const { expectProblem, newIssuer, postGrant, request } = support
const { config, documentClient, dynamodb, runtime, runtimeWith, wallClock } = testRuntime
type Call = support.Call
type Issuer = support.Issuer

/**
 * The recipient's holdings (issue 32, docs/decisions/holdings-sign-in.md) against the local server
 * and DynamoDB Local: the sign-in link request is queued (a LocalQueue with SQS's semantics) and
 * handed to the real OfferMailer, which mails LIVE links to the mail sink (SES's stand-in) and TEST
 * links to each issuer's TEST inbox; the link's token opens a session; the session reads the
 * holdings and acts on grants through the offer page's routes.
 */
const ORIGIN = 'https://console.example.com'
const offerMail = new LocalQueue(OFFER_MAIL_QUEUE, wallClock)
const api = useApi({
  runtime: { ...runtime, queues: { [OFFER_MAIL_QUEUE.id]: localQueueSender(offerMail) } },
})
const sinkFile = join(mkdtempSync(join(tmpdir(), 'holdings-')), 'mail.jsonl')
const mailerHandler = makeOfferMailerHandler(
  runtimeWith({ RECIPIENT_ORIGIN: ORIGIN, MAIL_SINK_FILE: sinkFile }),
)
const store = new DynamoDbGrantLifeStore(documentClient, config.tables)
const inbox = new DynamoDbInboxStore(documentClient, config.tables)
const life = makeGrantLife({ store, clock: () => wallClock.now() })

/** Every queued request through the OfferMailer, as Lambda's SQS poller would hand them. */
const deliver = async () => {
  for (;;) {
    const polled = await pollOnce(offerMail, mailerHandler, 10)
    expect(polled.failed).toBe(0)
    if (polled.received === 0) return
  }
}

const call = (
  method: string,
  path: string,
  options: { body?: unknown; session?: string; accept?: string } = {},
) =>
  request(api.baseUrl, method, path, {
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.session === undefined ? {} : { authorization: `Bearer ${options.session}` }),
      ...(options.accept === undefined ? {} : { accept: options.accept }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })

let unique = 0
const address = (name: string) => `${name}-${Date.now()}-${unique++}@example.com`

const grantTo = async (issuer: Issuer, email: string, amount: number, mode: 'LIVE' | 'TEST') => {
  const made = await postGrant(api.baseUrl, issuer.programs[mode], issuer.keys[mode], {
    recipient: { email, name: 'Ann Example' },
    reason: `Bonus ${amount}`,
    amount,
  })
  expect(made.status).toBe(201)
  return made.body.id as string
}

const update = (table: string, key: Record<string, string>, values: Record<string, unknown>) =>
  documentClient.send(
    new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression: `SET ${Object.keys(values)
        .map((k) => `#${k} = :${k}`)
        .join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(Object.keys(values).map((k) => [`#${k}`, k])),
      ExpressionAttributeValues: Object.fromEntries(
        Object.entries(values).map(([k, v]) => [`:${k}`, v]),
      ),
    }),
  )

const VALUE = {
  valueId: 'val_01',
  amount: '0.125',
  currency: 'EUR',
  asOf: '2026-11-01',
  setAt: '2026-11-02T10:00:00.000Z',
}

/** The sign-in mails the sink holds for `email` (LIVE through the sink; TEST ones too locally). */
const sinkMails = (email: string) => {
  let lines: string[] = []
  try {
    lines = readFileSync(sinkFile, 'utf8').split('\n').filter(Boolean)
  } catch {}
  return lines
    .map((line) => JSON.parse(line) as { to: string; subject: string; text: string })
    .filter((mail) => mail.to === email)
}

/** The sign-in messages in an issuer's TEST inbox for `email`. */
const inboxMails = async (issuerId: string, email: string) =>
  (await inbox.list({ issuerId, limit: 100 })).items.filter(
    (m) => m.to === email && m.subject.includes('Sign in'),
  )

const LINK = new RegExp(`${ORIGIN}/holdings#([A-Za-z0-9_-]{43})`)
const tokenIn = (text: string) => {
  const found = LINK.exec(text)?.[1]
  if (found === undefined) throw new Error(`no sign-in link in: ${text}`)
  return found
}

/** A new address with one LIVE grant (1 share) at Alpha. */
const holderOfOne = async (name: string) => {
  const email = address(name)
  await grantTo(alpha, email, 1, 'LIVE')
  return email
}

/** Asks for a link for `email`, lets the mailer send it: the token of the newest LIVE mail. */
const mailedToken = async (email: string) => {
  expect((await call('POST', '/recipient/holdings/link', { body: { email } })).status).toBe(202)
  await deliver()
  return tokenIn(sinkMails(email).at(-1)?.text ?? '')
}

/** A session from the LIVE mail of a new link. */
const liveSession = async (email: string) => {
  const started = await call('POST', '/recipient/holdings/session', {
    body: { token: await mailedToken(email) },
  })
  expect(started.status).toBe(201)
  return started.body.session as string
}

/** What two answers that must not be told apart have in common: all but the request id. */
const sameAnswer = (answer: Call) => {
  const { requestId: _, ...rest } = answer.body
  return { status: answer.status, type: answer.headers.get('content-type'), body: rest }
}

let alpha: Issuer
let beta: Issuer

beforeAll(async () => {
  ;[alpha, beta] = [await newIssuer({ pool: 1_000 }), await newIssuer({ pool: 1_000 })]
  await update(config.tables.issuers, { issuerId: alpha.issuerId }, { name: 'Alpha Ltd' })
  await update(config.tables.issuers, { issuerId: beta.issuerId }, { name: 'Beta GmbH' })
  await update(
    config.tables.programs,
    { programId: alpha.programs.LIVE },
    { value: VALUE, description: 'Alpha shares.' },
  )
})

afterEach(() => wallClock.reset())

describe('a LIVE sign-in across issuers', () => {
  it('mails one link, opens a session, shows both issuers exactly, and acts like the offer page', async () => {
    const email = address('live')
    const older = await grantTo(alpha, email, 5, 'LIVE')
    const newer = await grantTo(alpha, email, 3, 'LIVE')
    const atBeta = await grantTo(beta, email, 7, 'LIVE')
    const asked = await call('POST', '/recipient/holdings/link', {
      body: { email: ` ${email.toUpperCase()} ` },
    })
    expect(asked.status).toBe(202)
    expect(asked.body).toEqual({ object: 'holdings_link_request' })
    expect(asked.headers.get('cache-control')).toBe('no-store')
    await deliver()
    const mails = sinkMails(email)
    expect(mails).toHaveLength(1)
    expect(mails[0]?.subject).toBe('Sign in to see your shares')
    const token = tokenIn(mails[0]?.text ?? '')
    // Nothing in either issuer's TEST inbox: the address has no TEST grants.
    expect(await inboxMails(alpha.issuerId, email)).toEqual([])

    const started = await call('POST', '/recipient/holdings/session', { body: { token } })
    expect(started.status).toBe(201)
    expect(started.body).toEqual({
      object: 'holdings_session',
      session: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      mode: 'LIVE',
      idleMinutes: 30,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    })
    const session = started.body.session as string
    const seen = await call('GET', '/recipient/holdings', { session })
    expect(seen.status).toBe(200)
    expect(seen.headers.get('cache-control')).toBe('no-store')
    const offer = (grantId: string, amount: number, program: 'alpha' | 'beta') =>
      expect.objectContaining({
        grantId,
        amount,
        state: 'reserved',
        identified: false,
        programName: 'live program',
        ...(program === 'alpha' ? { description: 'Alpha shares.' } : {}),
      })
    const grant = (grantId: string, amount: number, program: 'alpha' | 'beta') => ({
      grantId,
      status: 'reserved',
      amount,
      reason: `Bonus ${amount}`,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      rejectionReason: null,
      acceptance: null,
      offer: offer(grantId, amount, program),
    })
    expect(seen.body).toEqual({
      object: 'holdings',
      email,
      mode: 'LIVE',
      issuers: [
        {
          issuerId: alpha.issuerId,
          name: 'Alpha Ltd',
          programs: [
            {
              programId: alpha.programs.LIVE,
              name: 'live program',
              description: 'Alpha shares.',
              tokenValue: '0.125',
              tokenValueCurrency: 'EUR',
              tokenValueCalculatedDate: '2026-11-01',
              accepted: 0,
              acceptedValue: '0.000',
              pending: 8,
              grants: [grant(newer, 3, 'alpha'), grant(older, 5, 'alpha')],
            },
          ],
        },
        {
          issuerId: beta.issuerId,
          name: 'Beta GmbH',
          programs: [
            {
              programId: beta.programs.LIVE,
              name: 'live program',
              description: null,
              tokenValue: null,
              tokenValueCurrency: null,
              tokenValueCalculatedDate: null,
              accepted: 0,
              acceptedValue: null,
              pending: 7,
              grants: [grant(atBeta, 7, 'beta')],
            },
          ],
        },
      ],
    })

    // Identify and accept from the holdings page: the offer page's use case and answers.
    const identified = await call('POST', '/recipient/identify', {
      session,
      body: { grantId: older, name: 'Ann Example' },
    })
    expect(identified.status).toBe(200)
    const accepted = await call('POST', '/recipient/accept', {
      session,
      body: { grantId: older, termsVersion: 0 },
    })
    expect(accepted.status).toBe(200)
    // The offer page's own view of the issuer's other (open) grant is the same entry.
    const link = await life.issueOfferLink(newer)
    const page = await call('POST', '/recipient/offer', { body: { token: link?.token } })
    expect(accepted.body).toEqual({
      email,
      grants: [
        (page.body.grants as unknown[])[0],
        expect.objectContaining({
          grantId: older,
          state: 'accepted',
          acceptedAt: expect.any(String),
        }),
      ],
    })
    expect((await store.findGrant(older))?.status).toBe('accepted')

    const after = await call('GET', '/recipient/holdings', { session })
    const alphaProgram = (after.body.issuers as { programs: Record<string, unknown>[] }[])[0]
      ?.programs[0]
    expect(alphaProgram).toMatchObject({ accepted: 5, acceptedValue: '0.625', pending: 3 })
    expect(((alphaProgram?.grants ?? []) as Record<string, unknown>[])[1]).toEqual({
      ...grant(older, 5, 'alpha'),
      status: 'accepted',
      acceptance: { termsVersion: 0, at: expect.any(String) },
      offer: null,
    })

    // The statement, read back.
    const csv = await call('GET', '/recipient/holdings', { session, accept: 'text/csv' })
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    expect(csv.headers.get('cache-control')).toBe('no-store')
    const rows = parse(csv.text, { columns: true }) as Record<string, string>[]
    expect(Object.keys(rows[0] ?? {})).toEqual([...HOLDINGS_CSV_COLUMNS])
    expect(rows.map((r) => [r.issuer, r.grant_id, r.status, r.amount, r.accepted_value])).toEqual([
      ['Alpha Ltd', newer, 'reserved', '3', ''],
      ['Alpha Ltd', older, 'accepted', '5', '0.625'],
      ['Beta GmbH', atBeta, 'reserved', '7', ''],
    ])
    expect(rows[1]).toMatchObject({
      program: 'live program',
      terms_version: '0',
      token_value: '0.125',
      token_value_currency: 'EUR',
      token_value_as_of: '2026-11-01',
      accepted_at: expect.stringMatching(/^\d{4}-/),
    })
  })

  it('keeps only hashes: no token, no session token, nothing but the address and times', async () => {
    const email = await holderOfOne('hashes')
    const token = await mailedToken(email)
    const started = await call('POST', '/recipient/holdings/session', { body: { token } })
    const session = started.body.session as string
    const item = await store.findGrant(`holdings-session#${hashOfferToken(session)}`)
    expect(Object.keys(item ?? {}).sort()).toEqual(
      ['expiresAt', 'grantId', 'holderKey', 'lastUsedAt', 'mode', 'purgeAt'].sort(),
    )
    expect(JSON.stringify(item)).not.toContain(session)
    // The link's token item is gone: used once.
    expect(await store.findGrant(`holdings-token#${hashOfferToken(token)}`)).toBeUndefined()
  })
})

describe('TEST sign-ins', () => {
  it("put one link in each issuer's TEST inbox; each session sees that issuer only", async () => {
    const email = address('test')
    const atAlpha = await grantTo(alpha, email, 2, 'TEST')
    const atBeta = await grantTo(beta, email, 4, 'TEST')
    expect((await call('POST', '/recipient/holdings/link', { body: { email } })).status).toBe(202)
    await deliver()
    const sessions: Record<string, string> = {}
    for (const [issuer, grantId] of [
      [alpha, atAlpha],
      [beta, atBeta],
    ] as const) {
      const mails = await inboxMails(issuer.issuerId, email)
      expect(mails).toHaveLength(1)
      expect(mails[0]).toMatchObject({ grantId, mode: 'TEST' })
      const started = await call('POST', '/recipient/holdings/session', {
        body: { token: tokenIn(mails[0]?.text ?? '') },
      })
      expect(started.body.mode).toBe('TEST')
      sessions[issuer.issuerId] = started.body.session as string
    }
    for (const [issuer, grantId] of [
      [alpha, atAlpha],
      [beta, atBeta],
    ] as const) {
      const seen = await call('GET', '/recipient/holdings', { session: sessions[issuer.issuerId] })
      expect(seen.body.mode).toBe('TEST')
      const issuers = seen.body.issuers as {
        issuerId: string
        programs: { grants: { grantId: string }[] }[]
      }[]
      expect(issuers.map((i) => i.issuerId)).toEqual([issuer.issuerId])
      expect(issuers[0]?.programs.flatMap((p) => p.grants.map((g) => g.grantId))).toEqual([grantId])
    }
    // Alpha's TEST session cannot touch Beta's TEST grant: answered as an unknown grant.
    const other = await call('POST', '/recipient/decline', {
      session: sessions[alpha.issuerId],
      body: { grantId: atBeta },
    })
    const unknown = await call('POST', '/recipient/decline', {
      session: sessions[alpha.issuerId],
      body: { grantId: 'gr_00000000000000000000000000' },
    })
    expectProblem(other, 404, 'grant_not_found')
    expect(sameAnswer(other).body.title).toBe(sameAnswer(unknown).body.title)
    expect((await store.findGrant(atBeta))?.status).toBe('reserved')
  })
})

describe('the answers that tell nothing', () => {
  it('an address without grants: the same 202, and no mail', async () => {
    const email = address('nobody')
    const asked = await call('POST', '/recipient/holdings/link', { body: { email } })
    expect(asked.status).toBe(202)
    expect(asked.body).toEqual({ object: 'holdings_link_request' })
    await deliver()
    expect(sinkMails(email)).toEqual([])
    expectProblem(
      await call('POST', '/recipient/holdings/link', { body: { email: 'not an address' } }),
      400,
      'validation_failed',
    )
  })

  it('a used, an expired and an unknown link: one answer (410)', async () => {
    const email = await holderOfOne('links')
    const used = await mailedToken(email)
    expect(
      (await call('POST', '/recipient/holdings/session', { body: { token: used } })).status,
    ).toBe(201)
    const again = await call('POST', '/recipient/holdings/session', { body: { token: used } })
    const expiring = await mailedToken(email)
    wallClock.advance(15 * 60_000 + 1)
    const expired = await call('POST', '/recipient/holdings/session', { body: { token: expiring } })
    const unknown = await call('POST', '/recipient/holdings/session', {
      body: { token: 'A'.repeat(43) },
    })
    const malformed = await call('POST', '/recipient/holdings/session', { body: { token: 'x' } })
    expectProblem(again, 410, 'link_expired')
    expect(again.body.detail).toBe(
      'This sign-in link has expired or was already used. Ask for a new one.',
    )
    for (const answer of [expired, unknown, malformed]) {
      expect(sameAnswer(answer)).toEqual(sameAnswer(again))
    }
  })

  it("another address's grant, or a LIVE session and a TEST grant: as an unknown grant", async () => {
    const email = await holderOfOne('mine')
    const theirs = await grantTo(alpha, address('theirs'), 1, 'LIVE')
    const myTest = await grantTo(alpha, email, 1, 'TEST')
    const session = await liveSession(email)
    const answers = await Promise.all(
      [theirs, myTest, 'gr_00000000000000000000000000'].map((grantId) =>
        call('POST', '/recipient/accept', { session, body: { grantId, termsVersion: 0 } }),
      ),
    )
    for (const answer of answers) expectProblem(answer, 404, 'grant_not_found')
    expect((await store.findGrant(theirs))?.status).toBe('reserved')
    expect((await store.findGrant(myTest))?.status).toBe('reserved')
  })
})

describe('one link, used at once twice', () => {
  it('makes one session: the other call is answered as a used link', async () => {
    const email = await holderOfOne('race')
    const token = await mailedToken(email)
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        call('POST', '/recipient/holdings/session', { body: { token } }),
      ),
    )
    expect(answers.map((a) => a.status).sort()).toEqual([201, 410, 410, 410])
  })
})

describe('the session', () => {
  it('ends after 30 idle minutes; each use moves its end on', async () => {
    wallClock.freeze()
    const email = await holderOfOne('idle')
    const session = await liveSession(email)
    wallClock.advance(29 * 60_000)
    expect((await call('GET', '/recipient/holdings', { session })).status).toBe(200)
    wallClock.advance(29 * 60_000)
    expect((await call('GET', '/recipient/holdings', { session })).status).toBe(200)
    wallClock.advance(30 * 60_000)
    const ended = await call('GET', '/recipient/holdings', { session })
    expectProblem(ended, 401, 'session_expired')
    const unknown = await call('GET', '/recipient/holdings', { session: 'B'.repeat(43) })
    const none = await call('GET', '/recipient/holdings')
    for (const answer of [unknown, none]) expect(sameAnswer(answer)).toEqual(sameAnswer(ended))
    // A step with an ended session changes nothing.
    expectProblem(
      await call('POST', '/recipient/decline', {
        session,
        body: { grantId: 'gr_00000000000000000000000000' },
      }),
      401,
      'session_expired',
    )
  })

  it('signs out: 204, then every use is 401', async () => {
    const email = await holderOfOne('out')
    const session = await liveSession(email)
    const out = await call('DELETE', '/recipient/holdings/session', { session })
    expect(out.status).toBe(204)
    expectProblem(await call('GET', '/recipient/holdings', { session }), 401, 'session_expired')
    expectProblem(
      await call('DELETE', '/recipient/holdings/session', { session }),
      401,
      'session_expired',
    )
  })
})

describe('attempts', () => {
  it('past the limit per token: 429', async () => {
    const { windowMs, limit } = RECIPIENT_LIMITS.token
    wallClock.freeze(Math.floor(Date.now() / windowMs) * windowMs + 1_000)
    const token = `${'C'.repeat(40)}${String(unique++).padStart(3, '0')}`
    for (let i = 0; i < limit; i++) {
      expect((await call('POST', '/recipient/holdings/session', { body: { token } })).status).toBe(
        410,
      )
    }
    const limited = await call('POST', '/recipient/holdings/session', { body: { token } })
    expectProblem(limited, 429, 'too_many_attempts')
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
  })

  it('past the limit per address: the same 202, and no more mail', async () => {
    const { windowMs, limit } = RECIPIENT_LIMITS.address
    wallClock.freeze(Math.floor(Date.now() / windowMs) * windowMs + 1_000)
    const email = await holderOfOne('flood')
    for (let i = 0; i <= limit; i++) {
      const asked = await call('POST', '/recipient/holdings/link', { body: { email } })
      expect({ status: asked.status, body: asked.body }).toEqual({
        status: 202,
        body: { object: 'holdings_link_request' },
      })
    }
    await deliver()
    expect(sinkMails(email)).toHaveLength(limit)
  })
})

describe('IAM: each function makes exactly the DynamoDB calls its route declares', () => {
  const recorded = (act: () => Promise<unknown>) => accessDuring(dynamodb, act)
  const declared = (id: string) => [...declaredAccess(id)].sort()

  it('the link (nothing; the OfferMailer within its own), the session, the holdings, sign-out', async () => {
    const email = address('iam')
    // An issuer whose name this process has not read yet (names are kept a few minutes).
    const fresh = await newIssuer({ pool: 10 })
    await grantTo(fresh, email, 1, 'LIVE')
    await grantTo(beta, email, 1, 'TEST')
    expect(
      await recorded(() => call('POST', '/recipient/holdings/link', { body: { email } })),
    ).toEqual(declared('RecipientHoldingsLink'))
    const allowed = consumerAccess('OfferMailer')
    const mailed = await recorded(deliver)
    expect(mailed).toEqual(
      expect.arrayContaining(['grants dynamodb:PutItem', 'inbox dynamodb:PutItem']),
    )
    expect(mailed.filter((line) => !allowed.has(line))).toEqual([])

    const token = tokenIn(sinkMails(email).find((m) => !m.subject.startsWith('[TEST]'))?.text ?? '')
    let session = ''
    expect(
      await recorded(async () => {
        const started = await call('POST', '/recipient/holdings/session', { body: { token } })
        session = started.body.session as string
      }),
    ).toEqual(declared('RecipientHoldingsSession'))
    expect(
      await recorded(async () => {
        expect((await call('GET', '/recipient/holdings', { session })).status).toBe(200)
      }),
    ).toEqual(declared('RecipientHoldings'))
    expect(
      await recorded(async () => {
        expect((await call('DELETE', '/recipient/holdings/session', { session })).status).toBe(204)
      }),
    ).toEqual(declared('RecipientHoldingsSignOut'))
  })

  it('accept with a session: within RecipientAccept', async () => {
    const email = address('iam-accept')
    const grantId = await grantTo(alpha, email, 1, 'LIVE')
    const session = await liveSession(email)
    expect(
      (await call('POST', '/recipient/identify', { session, body: { grantId, name: 'Ann' } }))
        .status,
    ).toBe(200)
    const made = await recorded(async () => {
      const accepted = await call('POST', '/recipient/accept', {
        session,
        body: { grantId, termsVersion: 0 },
      })
      expect(accepted.status).toBe(200)
    })
    const allowed = new Set(declared('RecipientAccept'))
    expect(made.filter((line) => !allowed.has(line))).toEqual([])
  })
})

describe('openapi.json', () => {
  const { check } = contractCheck()

  it('documents every answer the holdings routes and the steps with a session give', async () => {
    const email = address('contract')
    const grantId = await grantTo(alpha, email, 2, 'LIVE')
    await update(config.tables.programs, { programId: alpha.programs.LIVE }, { value: VALUE })
    check(
      '/recipient/holdings/link',
      'post',
      await call('POST', '/recipient/holdings/link', { body: { email } }),
    )
    check(
      '/recipient/holdings/link',
      'post',
      await call('POST', '/recipient/holdings/link', { body: { email: 'x' } }),
    )
    await deliver()
    const token = tokenIn(sinkMails(email).at(-1)?.text ?? '')
    const started = await call('POST', '/recipient/holdings/session', { body: { token } })
    check('/recipient/holdings/session', 'post', started)
    check(
      '/recipient/holdings/session',
      'post',
      await call('POST', '/recipient/holdings/session', { body: { token } }),
    )
    const session = started.body.session as string
    check('/recipient/holdings', 'get', await call('GET', '/recipient/holdings', { session }))
    check(
      '/recipient/holdings',
      'get',
      await call('GET', '/recipient/holdings', { session, accept: 'text/csv' }),
    )
    const steps = [
      ['/recipient/identify', { grantId, name: 'Ann Example' }],
      ['/recipient/accept', { grantId, termsVersion: 0 }],
      ['/recipient/decline', { grantId }],
      ['/recipient/decline', { grantId: 'gr_00000000000000000000000000' }],
    ] as const
    for (const [path, body] of steps)
      check(path, 'post', await call('POST', path, { session, body }))
    check('/recipient/holdings', 'get', await call('GET', '/recipient/holdings', { session }))
    check(
      '/recipient/holdings/session',
      'delete',
      await call('DELETE', '/recipient/holdings/session', { session }),
    )
    check(
      '/recipient/holdings/session',
      'delete',
      await call('DELETE', '/recipient/holdings/session', { session }),
    )
    check('/recipient/holdings', 'get', await call('GET', '/recipient/holdings', { session }))
    check(
      '/recipient/accept',
      'post',
      await call('POST', '/recipient/accept', { session, body: { grantId, termsVersion: 0 } }),
    )
  })
})
