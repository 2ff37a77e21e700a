/**
 * Whether "send me a new link" (`POST /recipient/links`) tells by its timing which addresses hold
 * open offers (issue 28): 20 addresses with open offers and 20 without, 5 requests each over the
 * local HTTP server, against the route as it is (the address queued, nothing read) and, side by
 * side in the same run, the route as it was (the look-up and the writes before the answer).
 * Per address the median of its 5; between the groups, the difference of their medians and how
 * often an address's median tells which group it is in (50% is a coin; the issue measured 98% for
 * the route as it was).
 */
import type { AddressInfo } from 'node:net'
import { buildRuntime } from '../../functions/composition'
import { OFFER_MAIL_QUEUE } from '../../functions/consumers'
import { makeGrantLife } from '../../functions/core/grant-life'
import { LINKS_ANSWER, RecipientLinksBody } from '../../functions/domain/recipient-request.schema'
import { makeRecipientLinksHandler } from '../../functions/http/routes/recipient-links.route'
import { recipientAnswer, recipientHandler } from '../../functions/http/routes/recipient-route'
import { DynamoDbGrantLifeStore } from '../../functions/stores/grant-life.dynamodb'
import { recipientLinksDeps } from '../../functions/wiring/recipient-links.deps'
import { createLocalApi, type LambdaHandler } from '../../local/http-server'
import { LocalQueue, localQueueSender } from '../../local/queue'
import type { Benchmark } from '../support/benchmark'
import { median, round } from '../support/report'

const ROUTE = 'POST /recipient/links'
const ADDRESSES = 20
const REQUESTS = 5
/** The issue's targets: the groups' medians this close, or told apart no better than this. */
const TARGET = { differenceMs: 0.3, toldApart: 0.6 }

/**
 * How often an address's median tells its group, over every (held, empty) pair: the chance that
 * the slower of the two medians is the held address's, or the faster (whichever is higher; ties
 * count half). 50% is a coin; a threshold fitted on the same 40 medians would read 62% on noise.
 */
export const toldApart = (held: number[], empty: number[]) => {
  let above = 0
  for (const h of held) {
    for (const e of empty) above += h > e ? 1 : h === e ? 0.5 : 0
  }
  const share = above / (held.length * empty.length)
  return Math.max(share, 1 - share)
}

export const benchmark: Benchmark = {
  title: '"send me a new link": what its timing tells about an address',
  resultPath: ['recipientLinks'],
  run: async (bench) => {
    const db = await bench.database()
    const clock = { now: () => Date.now() }
    const queue = new LocalQueue(OFFER_MAIL_QUEUE, clock)
    const runtime = buildRuntime(db.config, {
      dynamodb: db.dynamodb,
      documentClient: db.documentClient,
      queues: { [OFFER_MAIL_QUEUE.id]: localQueueSender(queue) },
    })
    // The route as it was before issue 28: the address's grants read and written, then 202.
    const life = makeGrantLife({
      store: new DynamoDbGrantLifeStore(db.documentClient, db.config.tables),
      clock: () => Date.now(),
    })
    const before = recipientHandler(RecipientLinksBody, async ({ email }) => {
      await life.requestLink({ email })
      return recipientAnswer(202, LINKS_ANSWER)
    })
    const servers = await Promise.all(
      [makeRecipientLinksHandler(recipientLinksDeps(runtime)), before].map(async (handler) => {
        const server = createLocalApi(new Map([[ROUTE, handler as LambdaHandler]]))
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
        return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
      }),
    )
    const run = `${Date.now()}`
    const held = Array.from({ length: ADDRESSES }, (_, i) => `held-${run}-${i}@example.com`)
    const empty = Array.from({ length: ADDRESSES }, (_, i) => `empty-${run}-${i}@example.com`)
    for (const email of held) {
      for (let g = 0; g < 3; g++) {
        const event = db.grantEvent()
        const result = await db.grantHandler(
          { ...event, body: JSON.stringify({ recipient: { email }, reason: 'Bench', amount: 1 }) },
          db.context,
        )
        if (result.statusCode !== 201) throw new Error(`grant: ${result.body}`)
      }
    }
    const ask = async (url: string, email: string) => {
      const t0 = performance.now()
      const response = await fetch(`${url}/recipient/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email }),
      })
      await response.arrayBuffer()
      const ms = performance.now() - t0
      if (response.status !== 202) throw new Error(`links answered ${response.status}`)
      return ms
    }
    // Warm both servers and their connections on addresses outside the groups.
    for (let i = 0; i < 30; i++) {
      for (const { url } of servers) await ask(url, `warm-${run}-${i % 5}@example.com`)
    }
    const times = servers.map(() => new Map<string, number[]>())
    const order = [...held, ...empty]
    for (let r = 0; r < REQUESTS; r++) {
      // A fresh order each round, the two routes alternating first.
      order.sort(() => Math.random() - 0.5)
      for (const [i, email] of order.entries()) {
        const sides = i % 2 === 0 ? [0, 1] : [1, 0]
        for (const side of sides) {
          const ms = await ask((servers[side] as { url: string }).url, email)
          const seen = times[side] as Map<string, number[]>
          seen.set(email, [...(seen.get(email) ?? []), ms])
        }
      }
      // The queued requests are not the subject: dropped, as a consumer would take them.
      for (let batch = queue.receive(10); batch.length > 0; batch = queue.receive(10)) {
        for (const message of batch) queue.delete(message.receiptHandle)
      }
    }
    for (const { server } of servers) {
      server.closeAllConnections()
      server.close()
    }
    const figures = times.map((seen) => {
      const perAddress = (emails: string[]) =>
        emails.map((email) => median(seen.get(email) as number[]))
      const h = perAddress(held)
      const e = perAddress(empty)
      return {
        heldMedianMs: round(median(h), 3),
        emptyMedianMs: round(median(e), 3),
        differenceMs: round(Math.abs(median(h) - median(e)), 3),
        toldApart: round(toldApart(h, e), 3),
      }
    })
    const [now, was] = figures as [(typeof figures)[0], (typeof figures)[0]]
    const met = now.differenceMs < TARGET.differenceMs || now.toldApart <= TARGET.toldApart
    return {
      result: { addresses: ADDRESSES, requests: REQUESTS, queued: now, lookupFirst: was },
      rows: [
        {
          metric: 'new link: median gap, open offers vs none (ms)',
          value: String(now.differenceMs),
          baseline: `${was.differenceMs} (look-up first)`,
          target: `< ${TARGET.differenceMs}, or told apart <= ${TARGET.toldApart * 100}%`,
          met,
        },
        {
          metric: 'new link: told apart by the median of 5',
          value: `${round(now.toldApart * 100, 0)}%`,
          baseline: `${round(was.toldApart * 100, 0)}% (look-up first)`,
        },
      ],
    }
  },
}
