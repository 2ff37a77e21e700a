import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SESv2Client } from '@aws-sdk/client-sesv2'
import type { SQSEvent } from 'aws-lambda'
import type { OfferMailMessage } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantLife } from '../../functions/core/grant-life'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import type { Mode } from '../../functions/domain/api-key'
import type { GrantRecord } from '../../functions/domain/grant'
import { countsAsIssued } from '../../functions/domain/grant-lifecycle'
import { hashOfferToken } from '../../functions/domain/recipient-offer'
import { type Mailer, type OutgoingMail, SesMailer } from '../../functions/mail/mailer'
import { tokenBucket } from '../../functions/mail/send-pace'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { DynamoDbInboxStore } from '../../functions/stores/inbox.dynamodb'
import { decodeInboxCursor, encodeInboxCursor } from '../../functions/stores/inbox.store'
import { issuerNames } from '../../functions/stores/issuer-names.dynamodb'
import { makeOfferMailerHandler } from '../../functions/wiring/offer-mailer.consumer'
import { admin, createKey, programState } from '../support/api'
import { config, documentClient, runtimeWith, wallClock } from '../support/runtime'

/**
 * The OfferMailer consumer on DynamoDB Local, through its SQS handler (the event Lambda hands it,
 * the partial batch response it answers): TEST mail lands in the issuer's TEST inbox (and the
 * local mail sink) and never in the LIVE transport; its link opens the offer; magic addresses
 * drive the grant; LIVE mail goes to the transport with the grant's tag; SES throttling sends the
 * message back; a redelivered message sends nothing once the grant is no longer open.
 */
const ORIGIN = 'https://console.example.com'
const grants = new DynamoDbGrantStore(documentClient, config.tables)
const lifeStore = new DynamoDbGrantLifeStore(documentClient, config.tables)
const life = makeGrantLife({ store: lifeStore, clock: () => wallClock.now() })
const inbox = new DynamoDbInboxStore(documentClient, config.tables)

const sinkFile = join(mkdtempSync(join(tmpdir(), 'offer-mailer-')), 'mail.jsonl')
const runtime = runtimeWith({ RECIPIENT_ORIGIN: ORIGIN, MAIL_SINK_FILE: sinkFile })

/** The LIVE transport, recording (under MAIL_SINK_FILE the factory would use the sink). */
const recording = () => {
  const sent: OutgoingMail[] = []
  const mailer: Mailer = {
    send: async (mail) => {
      sent.push(mail)
      return 'sent'
    },
  }
  return { sent, mailer }
}

const setUp = async (mode: Mode, pool = 1000) => {
  const { issuerId } = await admin.createIssuer({ name: `Mailer ${mode}` })
  const program = await admin.createProgram({
    issuer: issuerId,
    mode,
    name: `Launch ${mode}`,
    pool,
  })
  const key = await createKey({ issuerId, mode })
  return { issuerId, programId: program.programId, key: key.secret }
}

let counter = 0
const grantTo = async (target: { programId: string; key: string }, email: string, amount = 10) => {
  const send = makeGrantTokens({ store: grants, access: new AccessCache(grants) })
  const { grant } = await send({
    apiKey: target.key,
    programId: target.programId,
    idempotencyKey: `mailer-${process.pid}-${counter++}`,
    body: { recipient: { email, name: 'Ada' }, reason: 'Thanks <b>a lot</b>', amount },
  })
  return grant
}

let ids = 0
const sqsEvent = (...bodies: (OfferMailMessage | string)[]): SQSEvent => ({
  Records: bodies.map((body) => ({
    messageId: `m-${ids++}`,
    receiptHandle: 'r',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: '0',
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:local:000000000000:OfferMail',
    awsRegion: 'local',
  })),
})
const offer = (grant: GrantRecord | undefined): OfferMailMessage => ({
  kind: 'offer',
  grantId: grant?.grantId ?? '',
  cause: 'created',
})

const stored = async (grantId: string | undefined) => {
  const [grant] = await lifeStore.findGrants([grantId ?? ''])
  return grant as GrantRecord
}
const tokenIn = (text: string) => /\/offer#t=([A-Za-z0-9_-]{43})/.exec(text)?.[1]
const sinkMails = () =>
  readFileSync(sinkFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { to: string; subject: string; text: string })

/** A local SES endpoint answering each SendEmail with `answer(n)` (n from 1). */
const sesEndpoint = async (
  answer: (n: number) => { status: number; type?: string; body: unknown },
) => {
  let calls = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      calls++
      const { status, type, body } = answer(calls)
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(type === undefined ? {} : { 'x-amzn-errortype': type }),
      })
      res.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const client = new SESv2Client({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  })
  return {
    client,
    calls: () => calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}

describe('OfferMailer, TEST mode', () => {
  it('writes the rendered mail to the TEST inbox and the mail sink, never to the transport; its link opens the offer', async () => {
    const live = recording()
    const handler = makeOfferMailerHandler(runtime, { mailer: live.mailer })
    const target = await setUp('TEST')
    const grant = await grantTo(target, 'plain-person@example.com')

    expect(await handler(sqsEvent(offer(grant)))).toEqual({ batchItemFailures: [] })

    expect(live.sent).toEqual([])
    const { items } = await inbox.list({ issuerId: target.issuerId, limit: 10 })
    expect(items).toHaveLength(1)
    const message = items[0]
    expect(message).toMatchObject({
      issuerId: target.issuerId,
      mode: 'TEST',
      grantId: grant.grantId,
      to: 'plain-person@example.com',
    })
    expect(message?.subject).toBe('[TEST] Mailer TEST offers you 10 shares')
    expect(message?.html).toContain('Thanks &lt;b&gt;a lot&lt;/b&gt;')
    expect(message?.purgeAt).toBe(
      Math.floor(Date.parse(message?.createdAt ?? '') / 1000) + 30 * 86400,
    )
    const token = tokenIn(message?.text ?? '')
    expect(token).toBeDefined()
    expect(message?.html).toContain(`href="${ORIGIN}/offer#t=${token}"`)
    // Only the hash is kept, on the grant; the link opens the recipient's view of it.
    const after = await stored(grant.grantId)
    expect(after.offer?.tokens).toContain(hashOfferToken(token ?? ''))
    expect(JSON.stringify(after)).not.toContain(token)
    expect(after.offer?.delivery).toBe('test_inbox')
    expect(after.history?.map((h) => h.delivery)).toEqual(['test_inbox'])
    const view = await life.view({ token })
    expect(view.grants.map((g) => g.grantId)).toContain(grant.grantId)
    // Locally also in the mail sink, with the same link.
    const inSink = sinkMails().filter((m) => m.to === 'plain-person@example.com')
    expect(inSink).toHaveLength(1)
    expect(tokenIn(inSink[0]?.text ?? '')).toBe(token)
  })

  it.each([
    ['accept+order-42@example.com', { status: 'accepted' }, false],
    ['decline+x@example.com', { status: 'rejected', rejectionReason: 'declined' }, true],
    [
      'ineligible+x@example.com',
      { status: 'rejected', rejectionReason: 'ineligible_country' },
      true,
    ],
    ['expire+x@example.com', { status: 'expired' }, true],
  ] as const)('a magic address %s drives the grant to %j', async (email, expected, returned) => {
    const handler = makeOfferMailerHandler(runtime, { mailer: recording().mailer })
    const target = await setUp('TEST', 100)
    const grant = await grantTo(target, email, 10)
    expect(await handler(sqsEvent(offer(grant)))).toEqual({ batchItemFailures: [] })
    const after = await stored(grant.grantId)
    expect(after).toMatchObject(expected)
    expect(after.history?.some((h) => h.actor === 'simulation')).toBe(true)
    const state = await programState(target.programId)
    expect(state.issued).toBe(returned ? 0 : 10)
    expect(state.issued).toBe(
      state.grants.filter((g) => countsAsIssued(g.status)).reduce((s, g) => s + g.amount, 0),
    )
    // In the inbox all the same: the integrator sees what would have been sent.
    expect((await inbox.list({ issuerId: target.issuerId, limit: 5 })).items).toHaveLength(1)
  })

  it.each([
    ['bounce+x@example.com', 'bounced'],
    ['complain+x@example.com', 'complained'],
  ] as const)(
    'a magic address %s fails the delivery as %s, the grant still open',
    async (email, event) => {
      const handler = makeOfferMailerHandler(runtime, { mailer: recording().mailer })
      const target = await setUp('TEST')
      const grant = await grantTo(target, email)
      expect(await handler(sqsEvent(offer(grant)))).toEqual({ batchItemFailures: [] })
      const after = await stored(grant.grantId)
      expect(after.status).toBe('reserved')
      expect(after.offer?.delivery).toBe('failed')
      expect(after.history?.map((h) => h.delivery)).toEqual(['test_inbox', event])
    },
  )

  it('sends nothing for a redelivered message once the grant is no longer open', async () => {
    const handler = makeOfferMailerHandler(runtime, { mailer: recording().mailer })
    const target = await setUp('TEST')
    const accepted = await grantTo(target, 'accept+twice@example.com')
    const canceled = await grantTo(target, 'canceled@example.com')
    await life.cancel({
      grantId: canceled.grantId,
      issuerId: target.issuerId,
      actor: { kind: 'service' },
    })
    expect(await handler(sqsEvent(offer(accepted)))).toEqual({ batchItemFailures: [] })
    expect(await handler(sqsEvent(offer(accepted), offer(canceled)))).toEqual({
      batchItemFailures: [],
    })
    const { items } = await inbox.list({ issuerId: target.issuerId, limit: 10 })
    expect(items.map((m) => m.grantId)).toEqual([accepted.grantId])
    const deliveries = (await stored(accepted.grantId)).history?.filter(
      (h) => h.event === 'delivery',
    )
    expect(deliveries).toHaveLength(1)
  })

  it('lists an issuer’s inbox newest first, a page at a time, with a cursor only it made', async () => {
    const handler = makeOfferMailerHandler(runtime, { mailer: recording().mailer })
    const target = await setUp('TEST')
    for (let i = 0; i < 5; i++) {
      await handler(sqsEvent(offer(await grantTo(target, `page-${i}@example.com`))))
      wallClock.advance(5)
    }
    const first = await inbox.list({ issuerId: target.issuerId, limit: 2 })
    expect(first.items.map((m) => m.to)).toEqual(['page-4@example.com', 'page-3@example.com'])
    const cursor = encodeInboxCursor(first.last ?? '')
    expect(decodeInboxCursor(cursor)).toBe(first.last)
    const second = await inbox.list({
      issuerId: target.issuerId,
      limit: 2,
      after: decodeInboxCursor(cursor),
    })
    expect(second.items.map((m) => m.to)).toEqual(['page-2@example.com', 'page-1@example.com'])
    const third = await inbox.list({ issuerId: target.issuerId, limit: 2, after: second.last })
    expect(third.items.map((m) => m.to)).toEqual(['page-0@example.com'])
    expect(third.last).toBeUndefined()
    expect(decodeInboxCursor('not-a-cursor')).toBeUndefined()
    expect(
      decodeInboxCursor(Buffer.from('2026-01-01T00:00:00.000Z#zz').toString('base64url')),
    ).toBeUndefined()
    // Another issuer's inbox does not show them.
    const other = await setUp('TEST')
    expect((await inbox.list({ issuerId: other.issuerId, limit: 10 })).items).toEqual([])
  })

  it('fails a message of an unknown shape (it reaches the dead letters) and handles the rest', async () => {
    const handler = makeOfferMailerHandler(runtime, { mailer: recording().mailer })
    const target = await setUp('TEST')
    const grant = await grantTo(target, 'after-garbage@example.com')
    const event = sqsEvent('{"kind":"offer","grantId":"../etc"}', 'not json', offer(grant))
    const answer = await handler(event)
    expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
      event.Records[0]?.messageId,
      event.Records[1]?.messageId,
    ])
    expect((await stored(grant.grantId)).offer?.delivery).toBe('test_inbox')
  })
})

describe('OfferMailer, LIVE mode', () => {
  it('sends through the transport with the grant as a tag, records sent, and writes no inbox message', async () => {
    const live = recording()
    const handler = makeOfferMailerHandler(runtime, { mailer: live.mailer })
    const target = await setUp('LIVE')
    // A magic address means nothing on a LIVE grant.
    const grant = await grantTo(target, 'accept+live@example.com', 3)
    expect(await handler(sqsEvent(offer(grant)))).toEqual({ batchItemFailures: [] })
    expect(live.sent).toHaveLength(1)
    const mail = live.sent[0] as OutgoingMail
    expect(mail.to).toBe('accept+live@example.com')
    expect(mail.tags).toEqual({ grantId: grant.grantId })
    // Who grants is the issuer; the program is named in the body.
    expect(mail.subject).toBe('Mailer LIVE offers you 3 shares')
    expect(mail.text).toContain('Program:\nLaunch LIVE\n')
    expect(mail.html).toContain(`${ORIGIN}/offer#t=`)
    const after = await stored(grant.grantId)
    expect(after.status).toBe('reserved')
    expect(after.offer?.delivery).toBe('sent')
    expect(after.offer?.sends).toBe(1)
    expect((await inbox.list({ issuerId: target.issuerId, limit: 5 })).items).toEqual([])

    await handler(sqsEvent({ kind: 'reminder', grantId: grant.grantId, cause: 'reminder' }))
    expect(live.sent[1]?.subject).toMatch(
      /^Reminder: your offer of 3 shares from Mailer LIVE expires /,
    )
    expect((await stored(grant.grantId)).history?.map((h) => h.delivery)).toEqual([
      'sent',
      'reminded',
    ])
  })

  it('paces LIVE sends by its bucket, on the injected clock', async () => {
    const live = recording()
    let now = 0
    const sleeps: number[] = []
    const pace = tokenBucket({
      ratePerSecond: 0.5,
      clock: () => now,
      sleep: async (ms) => {
        sleeps.push(ms)
        now += ms
      },
    })
    const handler = makeOfferMailerHandler(runtime, { mailer: live.mailer, pace })
    const target = await setUp('LIVE')
    const batch: GrantRecord[] = []
    for (const email of ['p1@example.com', 'p2@example.com', 'p3@example.com', 'p4@example.com']) {
      batch.push(await grantTo(target, email))
    }
    expect(await handler(sqsEvent(...batch.map(offer)))).toEqual({ batchItemFailures: [] })
    expect(live.sent).toHaveLength(4)
    expect(sleeps).toEqual([2000, 2000, 2000])
  })

  it('leaves a message SES throttled for redelivery, with the rest of its batch; those grants unchanged', async () => {
    const ses = await sesEndpoint((n) =>
      n === 2
        ? {
            status: 429,
            type: 'TooManyRequestsException',
            body: { message: 'Maximum sending rate exceeded.' },
          }
        : { status: 200, body: { MessageId: `m-${n}` } },
    )
    try {
      const handler = makeOfferMailerHandler(runtime, {
        mailer: new SesMailer(ses.client, 'offers@example.org', 'vs-offer-mail'),
      })
      const target = await setUp('LIVE')
      const made: GrantRecord[] = []
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
        made.push(await grantTo(target, email))
      }
      const [a, b, c] = made
      const event = sqsEvent(offer(a), offer(b), offer(c))
      const answer = await handler(event)
      expect(answer.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([
        event.Records[1]?.messageId,
        event.Records[2]?.messageId,
      ])
      expect(ses.calls()).toBe(2)
      expect((await stored(a?.grantId)).offer?.delivery).toBe('sent')
      for (const g of [b, c]) {
        const after = await stored(g?.grantId)
        expect(after.offer?.delivery ?? 'pending').toBe('pending')
        expect(after.history ?? []).toEqual([])
      }
      // Redelivered, they go.
      expect(await handler(sqsEvent(offer(b), offer(c)))).toEqual({ batchItemFailures: [] })
      expect((await stored(b?.grantId)).offer?.delivery).toBe('sent')
      expect((await stored(c?.grantId)).offer?.delivery).toBe('sent')
    } finally {
      await ses.close()
    }
  })

  it('records a message SES refuses for itself as failed on the grant, and does not retry it', async () => {
    const ses = await sesEndpoint(() => ({
      status: 400,
      type: 'MessageRejected',
      body: { message: 'Email address is not verified: bad@example.com' },
    }))
    try {
      const handler = makeOfferMailerHandler(runtime, {
        mailer: new SesMailer(ses.client, 'offers@example.org'),
      })
      const target = await setUp('LIVE')
      const grant = await grantTo(target, 'bad@example.com')
      expect(await handler(sqsEvent(offer(grant)))).toEqual({ batchItemFailures: [] })
      const after = await stored(grant.grantId)
      expect(after.offer?.delivery).toBe('failed')
      expect(after.history?.find((h) => h.delivery === 'failed')?.detail).toBe(
        'ses: MessageRejected',
      )
      expect(JSON.stringify(after.history)).not.toContain('bad@example.com')
    } finally {
      await ses.close()
    }
  })
})

describe('OfferMailer without a recipient origin', () => {
  it('fails every message, saying what is missing, and sends nothing', async () => {
    const live = recording()
    const handler = makeOfferMailerHandler(runtimeWith({ MAIL_SINK_FILE: sinkFile }), {
      mailer: live.mailer,
    })
    const target = await setUp('LIVE')
    const grant = await grantTo(target, 'no-origin@example.com')
    const event = sqsEvent(offer(grant))
    expect(await handler(event)).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    })
    expect(live.sent).toEqual([])
    expect((await stored(grant.grantId)).offer?.tokens ?? []).toEqual([])
  })
})

describe('the issuer’s name in the mail', () => {
  it('is read once per issuer for a few minutes, and a failed read names the program instead of stopping the mail', async () => {
    let now = 0
    let calls = 0
    const failing = {
      send: async () => {
        calls++
        throw Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' })
      },
    } as unknown as Parameters<typeof issuerNames>[0]
    const heard: string[] = []
    const names = issuerNames(
      failing,
      'issuers',
      () => now,
      (issuerId, error) => heard.push(`${issuerId} ${(error as Error).name}`),
    )
    expect(await names('is_1')).toBeUndefined()
    expect(await names('is_1')).toBeUndefined()
    expect(calls).toBe(1)
    expect(heard).toEqual(['is_1 AccessDeniedException'])
    now += 5 * 60_000
    await names('is_1')
    expect(calls).toBe(2)
    // Against DynamoDB Local: the name, then the cached name.
    const { issuerId } = await admin.createIssuer({ name: 'Named Co' })
    const real = issuerNames(documentClient, config.tables.issuers, () => now)
    expect(await real(issuerId)).toBe('Named Co')
    expect(await real('is_missing')).toBeUndefined()
  })
})
