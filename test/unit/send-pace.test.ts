import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SESv2Client } from '@aws-sdk/client-sesv2'
import { SesMailer } from '../../functions/mail/mailer'
import { sesSendRate, tokenBucket } from '../../functions/mail/send-pace'

/**
 * Offer mail's pace: a token bucket on an injected clock (its sleeps move that clock, nothing
 * waits), the rate read from SES's GetAccount through the real SESv2 client against a local
 * endpoint, and the SendEmail request carrying the configuration set and the grant's tag.
 */
const virtualTime = () => {
  let now = 1_000_000
  const sleeps: number[] = []
  return {
    clock: () => now,
    advance: (ms: number) => {
      now += ms
    },
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms)
      now += ms
    },
  }
}

describe('the send pace', () => {
  it('spaces messages evenly at the rate, the first at once', async () => {
    const time = virtualTime()
    const pace = tokenBucket({ ratePerSecond: 0.5, clock: time.clock, sleep: time.sleep })
    const sentAt: number[] = []
    for (let i = 0; i < 5; i++) {
      await pace.take()
      sentAt.push(time.clock())
    }
    expect(sentAt.map((t) => t - 1_000_000)).toEqual([0, 2000, 4000, 6000, 8000])
  })

  it('never bursts after a pause: an idle bucket holds one message, not a second’s worth', async () => {
    const time = virtualTime()
    const pace = tokenBucket({ ratePerSecond: 10, clock: time.clock, sleep: time.sleep })
    await pace.take()
    time.advance(60_000)
    const start = time.clock()
    for (let i = 0; i < 4; i++) await pace.take()
    // One at once, then one every 100 ms.
    expect(time.clock() - start).toBe(300)
    expect(time.sleeps).toEqual([100, 100, 100])
  })

  it('keeps the rate when callers take at the same time: each reserves its own slot', async () => {
    const time = virtualTime()
    const sleeps: number[] = []
    // Sleeps that do not move the clock: all callers decide at the same instant.
    const pace = tokenBucket({
      ratePerSecond: 2,
      clock: time.clock,
      sleep: async (ms) => {
        sleeps.push(ms)
      },
    })
    await Promise.all([pace.take(), pace.take(), pace.take(), pace.take()])
    expect(sleeps).toEqual([500, 1000, 1500])
  })

  it('does not wait when the time has passed on its own', async () => {
    const time = virtualTime()
    const pace = tokenBucket({ ratePerSecond: 1, clock: time.clock, sleep: time.sleep })
    for (let i = 0; i < 3; i++) {
      await pace.take()
      time.advance(1000)
    }
    expect(time.sleeps).toEqual([])
  })

  it('reads its rate once, on first use', async () => {
    const time = virtualTime()
    let reads = 0
    const pace = tokenBucket({
      ratePerSecond: async () => {
        reads++
        return 4
      },
      clock: time.clock,
      sleep: time.sleep,
    })
    expect(reads).toBe(0)
    for (let i = 0; i < 3; i++) await pace.take()
    expect(reads).toBe(1)
    expect(time.sleeps).toEqual([250, 250])
  })
})

const sesEndpoint = async (
  answer: (req: IncomingMessage) => { status: number; body: unknown; type?: string },
) => {
  const requests: { method: string; url: string; body: unknown }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body: text ? JSON.parse(text) : null,
      })
      const { status, body, type } = answer(req)
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(type === undefined ? {} : { 'x-amzn-errortype': type }),
      })
      res.end(JSON.stringify(body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const client = new SESv2Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  })
  return { requests, client, close: () => new Promise<void>((r) => server.close(() => r())) }
}

describe('the SES account’s rate (GetAccount)', () => {
  it('is MaxSendRate shared among the consumer’s concurrent invocations', async () => {
    const ses = await sesEndpoint(() => ({
      status: 200,
      body: { SendQuota: { Max24HourSend: 50000, MaxSendRate: 14, SentLast24Hours: 3 } },
    }))
    try {
      const rate = await sesSendRate(ses.client, { fallback: 1, concurrency: 2 })()
      expect(rate).toBe(7)
      expect(ses.requests).toEqual([{ method: 'GET', url: '/v2/email/account', body: null }])
    } finally {
      await ses.close()
    }
  })

  it('falls back to the configured rate, and says why, when GetAccount is refused', async () => {
    const ses = await sesEndpoint(() => ({
      status: 403,
      body: { message: 'not authorized to perform: ses:GetAccount' },
      type: 'AccessDeniedException',
    }))
    const why: unknown[] = []
    try {
      const rate = await sesSendRate(ses.client, {
        fallback: 1,
        concurrency: 2,
        onFallback: (e) => why.push(e),
      })()
      expect(rate).toBe(0.5)
      expect((why[0] as Error).name).toBe('AccessDeniedException')
    } finally {
      await ses.close()
    }
  })
})

describe('SesMailer for offer mail', () => {
  it('sends with the configuration set and the grant as an EmailTag', async () => {
    const ses = await sesEndpoint(() => ({ status: 200, body: { MessageId: 'm-1' } }))
    try {
      const mailer = new SesMailer(ses.client, 'offers@example.org', 'vs-offer-mail')
      await mailer.send({
        to: 'ada@example.com',
        subject: 's',
        text: 't',
        html: '<p>h</p>',
        tags: { grantId: 'gr_0123456789abcdefghijklmnop' },
      })
      const body = ses.requests[0]?.body as Record<string, unknown>
      expect(ses.requests[0]?.url).toBe('/v2/email/outbound-emails')
      expect(body.ConfigurationSetName).toBe('vs-offer-mail')
      expect(body.EmailTags).toEqual([{ Name: 'grantId', Value: 'gr_0123456789abcdefghijklmnop' }])
      expect(body.FromEmailAddress).toBe('offers@example.org')
    } finally {
      await ses.close()
    }
  })

  it('without a configuration set or tags, sends neither (the members’ mail, unchanged)', async () => {
    const ses = await sesEndpoint(() => ({ status: 200, body: { MessageId: 'm-1' } }))
    try {
      await new SesMailer(ses.client, 'offers@example.org').send({
        to: 'a@example.com',
        subject: 's',
        text: 't',
      })
      const body = ses.requests[0]?.body as Record<string, unknown>
      expect(body).not.toHaveProperty('ConfigurationSetName')
      expect(body).not.toHaveProperty('EmailTags')
    } finally {
      await ses.close()
    }
  })
})
