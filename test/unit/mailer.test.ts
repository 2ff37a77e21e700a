import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SESv2Client } from '@aws-sdk/client-sesv2'
import { loadMailConfig } from '../../functions/config'
import { ENV } from '../../functions/env-names'
import {
  createMailer,
  MailSinkMailer,
  NoSenderMailer,
  SesMailer,
} from '../../functions/mail/mailer'

/**
 * The Mailer over Amazon SES, through the real SESv2 client against a local HTTP endpoint that
 * records what it receives: the request the SDK builds (SendEmail, REST-JSON) is what SES gets.
 */
const recordingEndpoint = async (status = 200) => {
  const requests: {
    method: string
    url: string
    headers: IncomingMessage['headers']
    body: unknown
  }[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null'),
      })
      res.writeHead(status, {
        'content-type': 'application/json',
        ...(status === 200 ? {} : { 'x-amzn-errortype': 'MessageRejected' }),
      })
      res.end(
        JSON.stringify(
          status === 200 ? { MessageId: 'm-1' } : { message: 'Email address is not verified.' },
        ),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const client = new SESv2Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  })
  return { requests, client, close: () => new Promise<void>((r) => server.close(() => r())) }
}

describe('SesMailer', () => {
  it('sends one SendEmail (SES API v2) from the configured identity, text and HTML in UTF-8', async () => {
    const endpoint = await recordingEndpoint()
    try {
      const mailer = new SesMailer(endpoint.client, 'no-reply@example.com')
      const outcome = await mailer.send({
        to: 'bob@example.com',
        subject: 'You have been added to Ærø & Co on Virtual Shares',
        text: 'Hello,\nplain',
        html: '<p>Hello</p>',
      })
      expect(outcome).toBe('sent')
      expect(endpoint.requests).toHaveLength(1)
      const [sent] = endpoint.requests
      expect(sent?.method).toBe('POST')
      expect(sent?.url).toBe('/v2/email/outbound-emails')
      // Signed (SigV4), as SES requires.
      expect(String(sent?.headers.authorization)).toMatch(
        /^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/eu-west-1\/ses\//,
      )
      expect(sent?.body).toEqual({
        FromEmailAddress: 'no-reply@example.com',
        Destination: { ToAddresses: ['bob@example.com'] },
        Content: {
          Simple: {
            Subject: {
              Data: 'You have been added to Ærø & Co on Virtual Shares',
              Charset: 'UTF-8',
            },
            Body: {
              Text: { Data: 'Hello,\nplain', Charset: 'UTF-8' },
              Html: { Data: '<p>Hello</p>', Charset: 'UTF-8' },
            },
          },
        },
      })
    } finally {
      endpoint.client.destroy()
      await endpoint.close()
    }
  })

  it("throws SES's refusal for the caller to decide", async () => {
    const endpoint = await recordingEndpoint(400)
    try {
      const mailer = new SesMailer(endpoint.client, 'no-reply@example.com')
      await expect(
        mailer.send({ to: 'bob@example.com', subject: 's', text: 't' }),
      ).rejects.toMatchObject({ name: 'MessageRejected' })
    } finally {
      endpoint.client.destroy()
      await endpoint.close()
    }
  })
})

describe('the mailer an environment asks for', () => {
  it('SES with MAIL_FROM, the local sink with MAIL_SINK_FILE, and none without either', async () => {
    const ses = createMailer(
      loadMailConfig({ [ENV.mailFrom]: 'no-reply@example.com', [ENV.awsRegion]: 'eu-west-1' }),
    )
    expect(ses).toBeInstanceOf(SesMailer)
    expect(createMailer(loadMailConfig({ [ENV.mailSinkFile]: '/tmp/x.jsonl' }))).toBeInstanceOf(
      MailSinkMailer,
    )
    const none = createMailer(loadMailConfig({ [ENV.mailFrom]: '  ' }))
    expect(none).toBeInstanceOf(NoSenderMailer)
    expect(await none.send({ to: 'a@example.com', subject: 's', text: 't' })).toBe('no_sender')
    expect(
      loadMailConfig({
        [ENV.mailFrom]: 'a@example.com',
        [ENV.mailSesRegion]: 'eu-central-1',
        [ENV.awsRegion]: 'eu-west-1',
      }),
    ).toMatchObject({ from: 'a@example.com', sesRegion: 'eu-central-1' })
  })
})
