import { GetCommand } from '@aws-sdk/lib-dynamodb'
import { requestIdTime } from '../../functions/domain/request-id'
import { REQUEST_LOG_DAYS, requestLogPartition } from '../../functions/domain/request-log'
import { REQUEST_LOG_FLUSH_MS, type Ticker } from '../../local/request-log-flusher'
import { newIssuer, postGrant } from '../support/api'
import { useApi } from '../support/api-harness'
import { config, documentClient } from '../support/runtime'

/**
 * The request log under `npm start`'s wiring, end to end: a real grant over HTTP to the local
 * server, whose integrator route records it (`recordRequest`), and the pipeline's flusher
 * (local/request-log-flusher.ts) writes it to the `requests` table on its next tick. The tick is
 * driven by hand: the entry is absent before it and present after it, so the bound under npm start
 * is one tick (REQUEST_LOG_FLUSH_MS, at most 250 ms) and one write, whatever the machine's speed.
 */

const ticks: { tick: () => Promise<void>; everyMs: number }[] = []
const handTicker: Ticker = (tick, everyMs) => {
  ticks.push({ tick, everyMs })
  return () => {}
}
const api = useApi({ pipeline: { requestLog: { ticker: handTicker } } })

const stored = async (issuerId: string, mode: 'TEST' | 'LIVE', requestId: string) =>
  (
    await documentClient.send(
      new GetCommand({
        TableName: config.tables.requests,
        Key: { pk: requestLogPartition(issuerId, mode, requestId), sk: requestId },
        ConsistentRead: true,
      }),
    )
  ).Item

it('writes a grant’s request on the flusher’s next tick, with its status, key id and route template, and never its key', async () => {
  expect(ticks.map((t) => t.everyMs)).toEqual([REQUEST_LOG_FLUSH_MS])
  const issuer = await newIssuer({ pool: 10 })
  const answer = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, undefined, {
    'idempotency-key': `request-log-${process.pid}`,
  })
  expect(answer.status).toBe(201)
  const requestId = answer.headers.get('request-id') as string
  expect(requestIdTime(requestId)).toEqual(expect.any(Number))
  expect(await stored(issuer.issuerId, 'TEST', requestId)).toBeUndefined()
  await (ticks[0] as (typeof ticks)[number]).tick()
  const item = await stored(issuer.issuerId, 'TEST', requestId)
  expect(item).toMatchObject({
    requestId,
    issuerId: issuer.issuerId,
    mode: 'TEST',
    method: 'POST',
    route: 'POST /programs/{programId}/grant-tokens',
    programId: issuer.programs.TEST,
    status: 201,
    idempotencyKey: `request-log-${process.pid}`,
    replayed: false,
    purgeAt: Math.floor(Date.parse(String(item?.at)) / 1000) + REQUEST_LOG_DAYS * 86_400,
  })
  expect(item?.keyId).toMatch(/^key_/)
  // Neither the key nor the body.
  expect(JSON.stringify(item)).not.toContain(issuer.keys.TEST)
  expect(JSON.stringify(item)).not.toContain('@example.com')
})

it('writes a refused request too, with its problem code', async () => {
  const issuer = await newIssuer({ pool: 10 })
  const answer = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST, {
    recipient: { email: 'x@example.com' },
    amount: 0,
  })
  expect(answer.status).toBe(400)
  const requestId = answer.headers.get('request-id') as string
  await (ticks[0] as (typeof ticks)[number]).tick()
  expect(await stored(issuer.issuerId, 'TEST', requestId)).toMatchObject({
    status: 400,
    code: (answer.body as { code: string }).code,
  })
})
