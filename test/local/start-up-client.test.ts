import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ListTablesCommand } from '@aws-sdk/client-dynamodb'
import { DYNAMODB_TIMEOUTS } from '../../functions/runtime/deadline'
import { createDynamoDbClient } from '../../functions/stores/dynamodb-client'
import { tableNames } from '../../functions/table-schema'
import { START_UP_DYNAMODB, startUpDynamoDb } from '../../local/start-up-client'
import { ensureTables } from '../../local/tables'
import { config } from '../support/runtime'

/**
 * `npm start` under load: DynamoDB Local, just started on an overloaded machine, answers its first
 * calls later than the functions' 1.5 s attempt timeout, and start-up used to give up. Here a
 * DynamoDB Local that answers slowly at first: a proxy on a real socket in front of the run's
 * DynamoDB Local, which holds the answers it is told to hold until the test lets them go.
 */
type Held = { target: string; release: () => void }

const slowDynamoDb = async (upstream: string) => {
  const seen: string[] = []
  /** Requests (their place in `seen`) whose client went away before their answer was written. */
  const abandoned: number[] = []
  const held: Held[] = []
  let holding = (_target: string) => false
  const arrivals: (() => void)[] = []
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    if (res.destroyed) return // the client gave up on it meanwhile
    const out = request(
      `${upstream}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    out.on('error', () => res.destroy())
    out.end(body)
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? ''
      const index = seen.push(target) - 1
      res.once('close', () => {
        if (!res.writableFinished) abandoned.push(index)
      })
      const body = Buffer.concat(chunks)
      if (holding(target)) held.push({ target, release: () => forward(req, res, body) })
      else forward(req, res, body)
      for (const arrived of arrivals.splice(0)) arrived()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    abandoned,
    held,
    hold: (which: (target: string) => boolean) => {
      holding = which
    },
    /** Resolves once `count` requests have arrived. */
    arrived: async (count: number) => {
      while (seen.length < count) await new Promise<void>((r) => arrivals.push(r))
    },
    close: () => {
      server.closeAllConnections()
      return new Promise((r) => server.close(r))
    },
  }
}

let slow: Awaited<ReturnType<typeof slowDynamoDb>>
beforeAll(async () => {
  slow = await slowDynamoDb(config.dynamodbEndpoint as string)
})
afterAll(() => slow?.close())

const pastTheAttemptTimeout = () =>
  new Promise((r) => setTimeout(r, DYNAMODB_TIMEOUTS.attemptTimeoutMs + 500))

it("is given up on by the functions' client: every attempt outlives 1.5 s", async () => {
  slow.hold(() => true)
  const from = slow.seen.length
  const client = createDynamoDbClient({ endpoint: slow.endpoint })
  try {
    await expect(client.send(new ListTablesCommand({}))).rejects.toThrow(/timeout|timed out/i)
    expect(slow.seen.slice(from)).toEqual(Array(DYNAMODB_TIMEOUTS.maxAttempts).fill('ListTables'))
  } finally {
    client.destroy()
    slow.held.splice(0)
  }
})

it('start-up waits for it: the tables are made, the slow first answer taken, not retried', async () => {
  // Only the first call is slow, as a DynamoDB Local that has just started.
  let first = true
  slow.hold(() => {
    const hold = first
    first = false
    return hold
  })
  expect(START_UP_DYNAMODB.attemptTimeoutMs).toBeGreaterThan(DYNAMODB_TIMEOUTS.attemptTimeoutMs)
  const from = slow.seen.length
  const tables = tableNames('vs', `-start-up-${randomUUID().slice(0, 8)}`)
  const { dynamodb } = startUpDynamoDb(slow.endpoint)
  try {
    const creating = ensureTables(dynamodb, tables)
    await slow.arrived(from + 1)
    // Held past the functions' attempt timeout (their client gave up by now, above), then answered.
    await pastTheAttemptTimeout()
    for (const held of slow.held.splice(0)) held.release()
    expect((await creating).sort()).toEqual(Object.values(tables).sort())
    // The first call (ListTables) was answered late, and no attempt was abandoned. (How many
    // ListTables pages follow depends on how many tables the run's DynamoDB Local holds.)
    expect(slow.seen[from]).toBe('ListTables')
    expect(slow.abandoned.filter((index) => index >= from)).toEqual([])
  } finally {
    dynamodb.destroy()
  }
})
