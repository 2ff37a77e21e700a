/**
 * Webhook latency for `npm run bench` (issue 21; reported, never asserted): the time from a grant's
 * state change to its delivery at a receiver, under a real `npm start -- --in-memory` (its stream
 * poller, local Webhooks queue and sender: the Lambda functions' code), with a receiver on loopback
 * that verifies every delivery with the `standardwebhooks` package.
 *
 * - `created`: from the grant API's `201` (the grant and its history are committed) to the
 *   `grant.created` delivery's arrival;
 * - `canceled`: from the cancel's `200` to the `grant.canceled` delivery's arrival.
 * Grants are made one after another, a few a second (an integrator's pace, not a load test), after
 * a warm-up. DynamoDB Local's stream is polled every 100 ms (local/pipeline.ts): most of the
 * figure is that poll; in AWS, Lambda polls a stream's shard four times a second.
 *
 * Run alone: `node --import tsx bench/webhooks.ts` prints the figures as JSON.
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { callServer, memberToken, startNpmStartSession } from '../test/support/npm-start-session'
import { percentile } from './support/report'
import { runAsScript } from './support/script'

const WARM_UP = 5
const GRANTS = 60
const PACE_MS = 150

export type WebhookLatency = {
  grants: number
  created: { p50: number; p99: number; max: number }
  canceled: { p50: number; p99: number; max: number }
  verified: number
}

const summary = (values: number[]) => ({
  p50: Math.round(percentile(values, 50)),
  p99: Math.round(percentile(values, 99)),
  max: Math.round(Math.max(...values)),
})

export const measureWebhookLatency = async (): Promise<WebhookLatency> => {
  const arrivals = new Map<string, number>()
  let secret = ''
  let verified = 0
  let refused = 0
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      const at = performance.now()
      try {
        const payload = new Webhook(secret).verify(body, req.headers as Record<string, string>) as {
          type: string
          data: { grantId?: string }
        }
        verified++
        arrivals.set(`${payload.type} ${payload.data.grantId}`, at)
      } catch {
        refused++
      }
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
  const port = (receiver.address() as AddressInfo).port
  const server = await startNpmStartSession('vs-bench-webhooks-')
  try {
    const token = await memberToken(server, 'admin')
    const made = await callServer(
      server,
      { token },
      'POST',
      `/manage/issuers/${server.seed.issuerId}/webhook-endpoints`,
      {
        url: `http://127.0.0.1:${port}/bench`,
        mode: 'TEST',
        kinds: ['grant.created', 'grant.canceled'],
      },
    )
    if (made.status !== 201)
      throw new Error(`endpoint: ${made.status} ${JSON.stringify(made.body)}`)
    secret = (made.body as { secret: string }).secret

    const key = { apiKey: server.seed.keys.TEST }
    const program = server.seed.programs.TEST
    const waitFor = async (name: string) => {
      const deadline = performance.now() + 60_000
      while (!arrivals.has(name)) {
        if (performance.now() > deadline) throw new Error(`no delivery of ${name}`)
        await new Promise((r) => setTimeout(r, 5))
      }
      return arrivals.get(name) as number
    }
    const created: number[] = []
    const canceled: number[] = []
    for (let n = 0; n < WARM_UP + GRANTS; n++) {
      const grant = await callServer(
        server,
        key,
        'POST',
        `/programs/${program}/grant-tokens`,
        { recipient: { email: `bench-${n}@example.com` }, reason: 'Bench', amount: 1 },
        { 'idempotency-key': randomUUID() },
      )
      const committed = performance.now()
      if (grant.status !== 201) throw new Error(`grant: ${grant.status}`)
      const grantId = (grant.body as { id: string }).id
      const createdAt = await waitFor(`grant.created ${grantId}`)
      const cancel = await callServer(
        server,
        key,
        'POST',
        `/programs/${program}/grants/${grantId}/cancel`,
      )
      const canceledAt = performance.now()
      if (cancel.status !== 200) throw new Error(`cancel: ${cancel.status}`)
      const delivered = await waitFor(`grant.canceled ${grantId}`)
      if (n >= WARM_UP) {
        created.push(createdAt - committed)
        canceled.push(delivered - canceledAt)
      }
      await new Promise((r) => setTimeout(r, PACE_MS))
    }
    if (refused > 0) throw new Error(`${refused} deliveries failed verification`)
    return { grants: GRANTS, created: summary(created), canceled: summary(canceled), verified }
  } finally {
    receiver.close()
    await server.stop()
  }
}

runAsScript(import.meta.url, measureWebhookLatency)
