import { randomBytes } from 'node:crypto'
import { WEBHOOKS_QUEUE } from '../../functions/consumers'
import { AccessCache } from '../../functions/core/access-cache'
import { makeGrantTokens } from '../../functions/core/grant-tokens'
import type { Mode } from '../../functions/domain/api-key'
import { auditEntry } from '../../functions/domain/audit-entry'
import { generateWebhookSecret } from '../../functions/domain/webhook-signature'
import {
  endpointKey,
  WEBHOOK_LIMITS,
  type WebhookEndpointRecord,
  type WebhookEventKind,
  webhookMessageId,
} from '../../functions/domain/webhooks'
import { makeWebhookHttp } from '../../functions/runtime/safe-http'
import { secretBoxFrom } from '../../functions/runtime/secret-box'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import { DynamoDbWebhookStore } from '../../functions/stores/webhooks.dynamodb'
import { makeWebhookSenderHandler } from '../../functions/wiring/webhook-sender.consumer'
import type { LocalQueue } from '../../local/queue'
import { localQueueSender } from '../../local/queue'
import { newIssuer } from '../support/api'
import { usePipeline } from '../support/pipeline'
import { config, documentClient, runtimeWith } from '../support/runtime'
import { selfSignedCert } from '../support/self-signed-cert'
import { startWebhookReceiver } from '../support/webhook-receiver'

/**
 * The whole local chain as `npm start` runs it: a grant written by the grant path -> DynamoDB
 * Local's stream -> GrantStream (webhook events) -> the Webhooks queue -> WebhookSender -> a real
 * receiver, over http (TEST) and https with a self-signed certificate (LIVE, trusted through the
 * safe client's `ca`), each delivery verified with `standardwebhooks`.
 */
const runtime = runtimeWith({
  WEBHOOK_LOCAL_SECRET_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_LOOPBACK: 'true',
})
const tls = selfSignedCert({ ip: ['127.0.0.1'] })
const pipeline = usePipeline({
  runtime,
  consumers: {
    WebhookSender: (rt, queues) =>
      makeWebhookSenderHandler(rt, {
        queue: localQueueSender(queues[WEBHOOKS_QUEUE.id] as LocalQueue),
        http: makeWebhookHttp({ allowLoopback: true, ca: tls.cert }),
        endpointsTtlMs: 0,
      }),
  },
})
const store = new DynamoDbWebhookStore(documentClient, config.tables)
const box = secretBoxFrom(runtime.config.webhooks)

let http: Awaited<ReturnType<typeof startWebhookReceiver>>
let https: Awaited<ReturnType<typeof startWebhookReceiver>>
beforeAll(async () => {
  http = await startWebhookReceiver()
  https = await startWebhookReceiver(tls)
})
afterAll(async () => {
  await http.close()
  await https.close()
})

const base32 = (n: number) =>
  Array.from(randomBytes(n), (b) => 'abcdefghijklmnopqrstuvwxyz234567'[b % 32]).join('')

const newEndpoint = async (
  issuerId: string,
  mode: Mode,
  receiver: typeof http,
  kinds: WebhookEventKind[] = ['grant.created'],
) => {
  const endpointId = `we_${base32(26)}`
  const secret = generateWebhookSecret()
  receiver.secrets.set(endpointId, secret)
  const at = new Date().toISOString()
  const endpoint: WebhookEndpointRecord = {
    ...endpointKey(issuerId, endpointId),
    endpointId,
    issuerId,
    mode,
    url: `${receiver.base}/hooks/${endpointId}`,
    kinds,
    enabled: true,
    secrets: [{ sealed: await box.seal(secret, { endpointId }), createdAt: at }],
    createdAt: at,
    updatedAt: at,
    version: 1,
  }
  const audit = auditEntry({
    issuerId,
    actor: { kind: 'operator', label: 'operator CLI' },
    action: 'webhook.create',
    target: { type: 'issuer', id: issuerId },
    now: Date.now(),
  })
  expect(await store.createEndpoint(endpoint, audit, WEBHOOK_LIMITS.endpointsPerMode)).toBe('done')
  return endpoint
}

const grants = new DynamoDbGrantStore(documentClient, config.tables)
const grantTokens = makeGrantTokens({ store: grants, access: new AccessCache(grants) })

it('a grant made in TEST reaches the TEST endpoint over http, one made in LIVE the LIVE one over https; neither crosses', async () => {
  const issuer = await newIssuer({ pool: 1000 })
  const test = await newEndpoint(issuer.issuerId, 'TEST', http)
  const live = await newEndpoint(issuer.issuerId, 'LIVE', https)
  const grant = async (mode: Mode) =>
    (
      await grantTokens({
        apiKey: issuer.keys[mode],
        programId: issuer.programs[mode],
        idempotencyKey: undefined,
        body: { recipient: { email: 'ann@example.com' }, reason: 'Launch', amount: 2 },
      })
    ).grant
  const testGrant = await grant('TEST')
  const liveGrant = await grant('LIVE')
  // The stream, GrantStream, the fan-out, then the deliveries the fan-out put back.
  for (let i = 0; i < 20; i++) {
    await pipeline.drain()
    if (http.by(test.endpointId).length > 0 && https.by(live.endpointId).length > 0) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const [toTest] = http.by(test.endpointId)
  const [toLive] = https.by(live.endpointId)
  for (const [delivery, made, endpoint] of [
    [toTest, testGrant, test],
    [toLive, liveGrant, live],
  ] as const) {
    expect(delivery?.verified).toBe(true)
    const body = JSON.parse(delivery?.body as string)
    expect(body).toMatchObject({
      type: 'grant.created',
      data: { grantId: made.grantId, mode: endpoint.mode, amount: 2 },
    })
    const [message] = (await store.listMessages(endpoint.endpointId, { limit: 10 })).messages
    expect(delivery?.id).toBe(message?.messageId)
    expect(message?.status).toBe('delivered')
    expect(
      webhookMessageId(
        { eventId: message?.eventId as string, occurredAt: body.timestamp },
        endpoint.endpointId,
      ),
    ).toBe(message?.messageId)
  }
  // Exactly one each: TEST's event never reached LIVE's endpoint, nor LIVE's TEST's.
  expect(http.by(test.endpointId)).toHaveLength(1)
  expect(https.by(live.endpointId)).toHaveLength(1)
  expect(http.by(live.endpointId)).toHaveLength(0)
  expect(https.by(test.endpointId)).toHaveLength(0)
  expect(pipeline.status().queues[WEBHOOKS_QUEUE.id]?.deadLetters).toBe(0)
})
