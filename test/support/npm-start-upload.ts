import { randomUUID } from 'node:crypto'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb'
import type { GrantRecord } from '../../functions/domain/grant'
import { LOCAL_TABLES } from '../../local/local-env'
import { callServer, type NpmStartSession, type SessionCall } from './npm-start-session'

/**
 * Send to many as the console does it, against a real `npm start`: ask for an upload, POST the
 * CSV to it (multipart/form-data, fields first), dry-run and commit from the upload, and read the
 * batch until it ends. Shared by test/local/npm-start-upload-batch.test.ts (exactness at a size
 * that runs in seconds) and bench/upload-batch.ts (the volume, timed).
 */
export type UploadRun = {
  batchId: string
  upload: SessionCall
  sent: number
  dry: SessionCall
  committed: SessionCall
  /** The batch as last read: `done` (or `canceled`). */
  batch: Record<string, unknown>
  /**
   * Every read of the batch while it ran: 200, or a 503 `service_unavailable` (DynamoDB Local, busy
   * with the batch, answered a read too late), which is read again as the console does.
   */
  reads: SessionCall[]
  /** From sending the commit to its answer, and to the read that saw the batch end. */
  commitMs: number
  doneMs: number
}

/** `rows` rows, one address each, amount 1. */
export const uploadCsv = (rows: number) =>
  `email,name,amount,reason\r\n${Array.from(
    { length: rows },
    (_, i) => `row-${i}@example.com,Person ${i},1,Launch reward ${i % 7}`,
  ).join('\r\n')}\r\n`

/**
 * `POST /_local/pipeline/drain`: true once the pipeline has taken all it can take now; false when
 * it is still at work after the route's longest wait (a minute), and is waited for again.
 */
const drained = async (baseUrl: string) => {
  const response = await fetch(`${baseUrl}/_local/pipeline/drain?timeoutMs=60000`, {
    method: 'POST',
  })
  await response.text()
  return response.status === 200
}

/** Past GrantBatchRows' visibility timeout (360 s) on npm start's clock: a failed chunk is back. */
const advanceClock = async (baseUrl: string) => {
  const response = await fetch(`${baseUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advanceMs: 361_000 }),
  })
  if (response.status !== 200) throw new Error(`clock: ${await response.text()}`)
}

/** The answer of a route whose DynamoDB calls did not finish within its time: read again. */
export const isBusy = (call: SessionCall) =>
  call.status === 503 && call.body.code === 'service_unavailable'

export const uploadAndCommit = async (
  server: NpmStartSession,
  token: string,
  csv: string,
): Promise<UploadRun> => {
  const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    callServer(server, { token }, method, path, body, headers)
  const program = `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.TEST}`
  const upload = await call('POST', `${program}/grant-batch-uploads`)
  if (upload.status !== 201) throw new Error(`upload: ${upload.status} ${JSON.stringify(upload)}`)
  const { url, fields, uploadId } = upload.body as {
    url: string
    fields: Record<string, string>
    uploadId: string
  }
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'rewards.csv')
  const sent = (await fetch(url, { method: 'POST', body: form })).status

  // A dry run changes nothing, and a commit is sent again with its Idempotency-Key, as the 503
  // asks: a busy machine's late DynamoDB Local answer is retried, never taken as the outcome, and
  // as often as the machine is busy (no count of tries that a slower machine would exceed).
  const again = async (send: () => Promise<SessionCall>) => {
    let answer = await send()
    while (isBusy(answer)) answer = await send()
    return answer
  }
  const dry = await again(() =>
    call('POST', `${program}/grant-batches`, { upload: uploadId, dryRun: true }),
  )
  const committedAt = Date.now()
  const key = `npm-start-upload-${randomUUID()}`
  const committed = await again(() =>
    call(
      'POST',
      `${program}/grant-batches`,
      { upload: uploadId, dryRun: false },
      { 'idempotency-key': key },
    ),
  )
  const commitMs = Date.now() - committedAt
  if (committed.status !== 202) {
    throw new Error(`commit: ${committed.status} ${JSON.stringify(committed.body)}`)
  }
  const batchId = committed.body.id as string
  let batch: Record<string, unknown> = committed.body
  const reads: SessionCall[] = []
  // No deadline and no sleep: wait until npm start's pipeline has done all it can now, read the
  // batch, and if a chunk is still out (its delivery failed on a busy machine and waits out the
  // queue's visibility timeout), move npm start's clock past that timeout and go on.
  while (batch.status !== 'done' && batch.status !== 'canceled') {
    if (batch.status === 'stalled') throw new Error(`stalled: ${JSON.stringify(batch)}`)
    const idle = await drained(server.baseUrl)
    const read = await call('GET', `${program}/grant-batches/${batchId}?limit=1`)
    reads.push(read)
    if (isBusy(read)) continue
    if (read.status !== 200) throw new Error(`read: ${read.status} ${JSON.stringify(read.body)}`)
    batch = read.body
    if (idle && (batch.status === 'running' || batch.status === 'queued')) {
      await advanceClock(server.baseUrl)
    }
  }
  const doneMs = Date.now() - committedAt
  return { batchId, upload, sent, dry, committed, batch, reads, commitMs, doneMs }
}

/** The program's `issued`, as the management API answers it. */
export const issuedOf = async (server: NpmStartSession, token: string) => {
  const program = `/manage/issuers/${server.seed.issuerId}/programs/${server.seed.programs.TEST}`
  return (await callServer(server, { token }, 'GET', program)).body.issued
}

/** Every grant of the program in npm start's DynamoDB Local, read strongly consistent. */
export const grantsOf = async (server: NpmStartSession, programId: string) => {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: server.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  )
  const grants: GrantRecord[] = []
  let start: Record<string, unknown> | undefined
  try {
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: LOCAL_TABLES.grants,
          FilterExpression: 'programId = :p',
          ExpressionAttributeValues: { ':p': programId },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      )
      grants.push(...((page.Items ?? []) as GrantRecord[]))
      start = page.LastEvaluatedKey
    } while (start)
  } finally {
    client.destroy()
  }
  return grants
}

/**
 * Every row granted exactly once, to `batchId`: one grant per row and per address, and the rows'
 * sum (each row is 1) is the program's `issued`. What is wrong, or an empty list.
 */
export const exactnessProblems = (
  rows: number,
  batchId: string,
  grants: GrantRecord[],
  issued: unknown,
) => {
  const problems: string[] = []
  if (issued !== rows) problems.push(`issued ${issued}, not ${rows}`)
  if (grants.length !== rows) problems.push(`${grants.length} grants, not ${rows}`)
  const emails = new Set(grants.map((g) => g.recipient.email)).size
  if (emails !== rows) problems.push(`${emails} addresses, not ${rows}`)
  const batchRows = new Set(grants.map((g) => g.batch?.row)).size
  if (batchRows !== rows) problems.push(`${batchRows} distinct rows, not ${rows}`)
  if (!grants.every((g) => g.batch?.batchId === batchId)) problems.push('a grant of another batch')
  return problems
}
