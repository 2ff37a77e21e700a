import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { SQSClient } from '@aws-sdk/client-sqs'
import { sqsQueueSender, sqsQueueSenders } from '../../functions/runtime/queue-sender'

/**
 * sqsQueueSender through the SDK's own SQS client, over a real socket to a server that answers as
 * SQS's JSON protocol does: what goes on the wire per entry (DelaySeconds included), and which
 * entries it reports as not taken; sqsQueueSenders, an entry's senders by the queues' URL variables.
 */

type Entry = { Id: string; MessageBody: string; DelaySeconds?: number }
type Seen = { target: unknown; body: { QueueUrl: string; Entries: Entry[] } }

let server: Server
let client: SQSClient
let url: string
const seen: Seen[] = []
/** What the server answers next: SQS's per-entry failures, or a whole-call error. */
let refuse: (entry: Entry) => boolean = () => false
let status = 200

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk) => {
      text += chunk
    })
    req.on('end', () => {
      const body = JSON.parse(text) as Seen['body']
      seen.push({ target: req.headers['x-amz-target'], body })
      if (status !== 200) {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' })
        res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InternalError', message: 'down' }))
        return
      }
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' })
      res.end(
        JSON.stringify({
          // The SDK checks each taken body's MD5, as SQS computes it.
          Successful: body.Entries.filter((e) => !refuse(e)).map((e) => ({
            Id: e.Id,
            MessageId: `m-${e.Id}`,
            MD5OfMessageBody: createHash('md5').update(e.MessageBody, 'utf8').digest('hex'),
          })),
          Failed: body.Entries.filter(refuse).map((e) => ({
            Id: e.Id,
            SenderFault: false,
            Code: 'InternalError',
          })),
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  client = new SQSClient({
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    maxAttempts: 1,
  })
  url = `http://127.0.0.1:${port}/000000000000/Webhooks`
})
afterAll(() => {
  client.destroy()
  server.close()
})
beforeEach(() => {
  seen.length = 0
  refuse = () => false
  status = 200
})

test('each entry goes with its own DelaySeconds (none when it has no delay) in one SendMessageBatch', async () => {
  const sender = sqsQueueSender(client, url)
  const answer = await sender.sendBatch([
    { id: 'now', body: '{"kind":"event"}' },
    { id: 'zero', body: 'b', delaySeconds: 0 },
    { id: 'five', body: 'c', delaySeconds: 5 },
    { id: 'most', body: 'd', delaySeconds: 900 },
  ])
  expect(answer).toEqual({ failed: [] })
  expect(seen).toEqual([
    {
      target: 'AmazonSQS.SendMessageBatch',
      body: {
        QueueUrl: url,
        Entries: [
          { Id: 'now', MessageBody: '{"kind":"event"}' },
          { Id: 'zero', MessageBody: 'b' },
          { Id: 'five', MessageBody: 'c', DelaySeconds: 5 },
          { Id: 'most', MessageBody: 'd', DelaySeconds: 900 },
        ],
      },
    },
  ])
})

test('entries SQS did not take are answered by id; a call that fails fails every entry; nothing is sent for none', async () => {
  const sender = sqsQueueSender(client, url)
  refuse = (e) => e.Id === 'b'
  expect(
    await sender.sendBatch([
      { id: 'a', body: 'a', delaySeconds: 10 },
      { id: 'b', body: 'b', delaySeconds: 20 },
    ]),
  ).toEqual({ failed: ['b'] })
  status = 500
  expect(
    await sender.sendBatch([
      { id: 'c', body: 'c' },
      { id: 'd', body: 'd', delaySeconds: 1 },
    ]),
  ).toEqual({ failed: ['c', 'd'] })
  expect(seen).toHaveLength(2)
  expect(await sender.sendBatch([])).toEqual({ failed: [] })
  expect(seen).toHaveLength(2)
})

test("an entry's senders: each queue at the URL its variable holds, over one client", async () => {
  const senders = sqsQueueSenders(
    [
      { id: 'OfferMail', urlVariable: 'OFFER_MAIL_QUEUE_URL' },
      { id: 'Webhooks', urlVariable: 'WEBHOOKS_QUEUE_URL' },
    ],
    { OFFER_MAIL_QUEUE_URL: `${url}-offers`, WEBHOOKS_QUEUE_URL: url },
    'eu-west-1',
    client,
  )
  expect(Object.keys(senders)).toEqual(['OfferMail', 'Webhooks'])
  await senders.OfferMail.sendBatch([{ id: 'a', body: 'a' }])
  await senders.Webhooks.sendBatch([{ id: 'b', body: 'b' }])
  expect(seen.map((s) => s.body.QueueUrl)).toEqual([`${url}-offers`, url])
})

test('a queue whose URL variable is missing or empty stops the entry at init, naming the variable', () => {
  const queues = [{ id: 'Webhooks', urlVariable: 'WEBHOOKS_QUEUE_URL' }]
  for (const env of [{}, { WEBHOOKS_QUEUE_URL: '' }]) {
    expect(() => sqsQueueSenders(queues, env, 'eu-west-1', client)).toThrow(
      'Missing required environment variable WEBHOOKS_QUEUE_URL.',
    )
  }
  expect(sqsQueueSenders([], {}, 'eu-west-1', client)).toEqual({})
})
