import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import {
  generateWebhookSecret,
  signWebhook,
  webhookHeaders,
} from '../../functions/domain/webhook-signature'

/**
 * Every signature here is checked by the `standardwebhooks` package (the scheme's own TypeScript
 * library, code we did not write), as an integrator's receiver would check it.
 */
const now = () => Math.floor(Date.now() / 1000)
const body = JSON.stringify({
  type: 'grant.accepted',
  timestamp: '2026-11-26T23:00:00.000Z',
  data: { grantId: 'g_1', note: 'ünïcødé ✓' },
})
const id = 'msg_0193a1b2c3d4abcdefghijklmnopqrst'

describe('Standard Webhooks signatures', () => {
  it('makes secrets of whsec_ and 24 random bytes in base64, never repeating', () => {
    const secrets = Array.from({ length: 500 }, generateWebhookSecret)
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24)
    }
    expect(new Set(secrets).size).toBe(500)
  })

  it("reproduces the scheme's published test vector", () => {
    expect(
      signWebhook({
        id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
        timestamp: 1614265330,
        body: '{"test": 2432232314}',
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      }),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  it('is verified by the standardwebhooks package, which returns the parsed body', () => {
    const secret = generateWebhookSecret()
    const headers = webhookHeaders({ id, timestamp: now(), body, secrets: [secret] })
    expect(Object.keys(headers).sort()).toEqual([
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ])
    expect(headers['webhook-id']).toBe(id)
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
  })

  it('signs with both secrets during a rotation: a receiver holding only the old or only the new verifies', () => {
    const previous = generateWebhookSecret()
    const current = generateWebhookSecret()
    const timestamp = now()
    const headers = webhookHeaders({ id, timestamp, body, secrets: [current, previous] })
    const signatures = headers['webhook-signature'].split(' ')
    expect(signatures).toEqual([
      signWebhook({ id, timestamp, body, secrets: [current] }),
      signWebhook({ id, timestamp, body, secrets: [previous] }),
    ])
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body))
    // Someone else's secret matches neither.
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(
      'No matching signature found',
    )
  })

  it('is refused for a tampered body, id or timestamp', () => {
    const secret = generateWebhookSecret()
    const timestamp = now()
    const headers = webhookHeaders({ id, timestamp, body, secrets: [secret] })
    const receiver = new Webhook(secret)
    expect(() => receiver.verify(body.replace('g_1', 'g_2'), headers)).toThrow(
      WebhookVerificationError,
    )
    expect(() => receiver.verify(`${body} `, headers)).toThrow('No matching signature found')
    expect(() => receiver.verify(body, { ...headers, 'webhook-id': `${id}x` })).toThrow(
      'No matching signature found',
    )
    expect(() =>
      receiver.verify(body, { ...headers, 'webhook-timestamp': String(timestamp - 1) }),
    ).toThrow('No matching signature found')
  })

  it('is refused by the package when the timestamp is more than 5 minutes from its clock, either way', () => {
    const secret = generateWebhookSecret()
    const receiver = new Webhook(secret)
    const at = (timestamp: number) => webhookHeaders({ id, timestamp, body, secrets: [secret] })
    expect(() => receiver.verify(body, at(now() - 6 * 60))).toThrow('Message timestamp too old')
    expect(() => receiver.verify(body, at(now() + 6 * 60))).toThrow('Message timestamp too new')
    // Within the tolerance, a correctly signed message passes.
    expect(receiver.verify(body, at(now() - 4 * 60))).toEqual(JSON.parse(body))
  })

  it('refuses to sign without a secret, with a malformed secret or a fractional timestamp, never echoing the secret', () => {
    const timestamp = now()
    expect(() => signWebhook({ id, timestamp, body, secrets: [] })).toThrow('at least one secret')
    for (const bad of ['MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_', 'whsec_not base64!']) {
      let message = ''
      try {
        signWebhook({ id, timestamp, body, secrets: [bad] })
      } catch (error) {
        message = (error as Error).message
      }
      expect(message).toBe('A webhook secret must be whsec_ followed by base64')
    }
    expect(() =>
      signWebhook({ id, timestamp: 1.5, body, secrets: [generateWebhookSecret()] }),
    ).toThrow('whole seconds')
  })
})
