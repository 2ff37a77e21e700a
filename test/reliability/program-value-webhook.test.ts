import { randomBytes, randomUUID } from 'node:crypto'
import { LOCAL_CONSUMERS } from '../../local/consumer-factories'
import { join, manage } from '../manage/programs-keys.support'
import { type Issuer, newIssuer, startApi } from '../support/api'
import { type Person, signUpPerson } from '../support/identity'
import { runtimeWith } from '../support/runtime'
import { startWebhookReceiver } from '../support/webhook-receiver'

/**
 * `program.value_changed` end to end, as `npm start` runs it: a value set through the management
 * API -> its outbox item in the grants table -> DynamoDB Local's stream -> GrantStream -> the
 * Webhooks queue -> WebhookSender -> a real receiver on loopback that verifies each delivery with
 * the `standardwebhooks` package. An endpoint not subscribed to the kind gets nothing.
 */

const runtime = runtimeWith({
  WEBHOOK_LOCAL_SECRET_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_LOOPBACK: 'true',
})
let api: Awaited<ReturnType<typeof startApi>>
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>
let issuer: Issuer
let owner: Person

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  // The stream too: the outbox item reaches GrantStream through it.
  api = await startApi({ runtime, pipeline: { consumers: LOCAL_CONSUMERS, stream: true } })
  ;[issuer, owner] = await Promise.all([newIssuer(), signUpPerson()])
  await join(owner, issuer.issuerId, 'owner')
})
afterAll(async () => {
  await api.close()
  await receiver.close()
})

const call = (method: string, path: string, body?: unknown) =>
  manage(api.baseUrl, owner, method, `/manage/issuers/${issuer.issuerId}${path}`, body)

/** An endpoint of the issuer's TEST mode at the receiver, for `kinds`; its name there. */
const endpointFor = async (kinds: string[]) => {
  const name = `values-${randomUUID()}`
  const made = await call('POST', '/webhook-endpoints', {
    url: `${receiver.base}/hooks/${name}`,
    mode: 'TEST',
    kinds,
  })
  expect(made.status).toBe(201)
  receiver.secrets.set(name, made.body.secret as string)
  return name
}

/** Drains the pipeline until `name` has `count` deliveries (the stream is polled on a timer). */
const deliveriesOf = async (name: string, count: number) => {
  for (let i = 0; i < 50 && receiver.by(name).length < count; i++) {
    await api.pipeline?.drain()
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return receiver.by(name)
}

it('delivers program.value_changed, signed, for the current and for a backdated value', async () => {
  const subscribed = await endpointFor(['program.value_changed'])
  const other = await endpointFor(['grant.created'])
  const values = `/programs/${issuer.programs.TEST}/values`
  const set = await call('POST', values, {
    amount: '12.50',
    currency: 'EUR',
    asOf: '2026-11-01',
    method: 'Last round',
  })
  expect(set.status).toBe(201)
  const backdated = await call('POST', values, {
    amount: '10',
    currency: 'EUR',
    asOf: '2026-01-01',
  })
  expect(backdated.status).toBe(201)

  const delivered = await deliveriesOf(subscribed, 2)
  expect(delivered.map((d) => d.verified)).toEqual([true, true])
  const bodies = delivered
    .map((d) => JSON.parse(d.body))
    .sort((a, b) => a.data.setAt.localeCompare(b.data.setAt))
  expect(bodies).toEqual([
    {
      type: 'program.value_changed',
      timestamp: set.body.setAt,
      data: {
        programId: issuer.programs.TEST,
        mode: 'TEST',
        valueId: set.body.id,
        tokenValue: '12.50',
        tokenValueCurrency: 'EUR',
        tokenValueCalculatedDate: '2026-11-01',
        method: 'Last round',
        current: true,
        setAt: set.body.setAt,
      },
    },
    {
      type: 'program.value_changed',
      timestamp: backdated.body.setAt,
      data: expect.objectContaining({ valueId: backdated.body.id, method: null, current: false }),
    },
  ])
  // Never who set it.
  expect(delivered.map((d) => d.body).join('')).not.toContain(owner.email)
  expect(receiver.by(other)).toEqual([])
})
