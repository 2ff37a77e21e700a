import { BATCH_WORK, consumerById } from '../../functions/consumers'
import { BATCH_LIMITS } from '../../functions/domain/batch'
import {
  memberToken,
  type NpmStartSession,
  startNpmStartSession,
} from '../support/npm-start-session'
import { grantsOf, isBusy, issuedOf, uploadAndCommit, uploadCsv } from '../support/npm-start-upload'

/**
 * Issue 20's send to many from one upload, exactly, under `npm start`: a real
 * `npm start -- --in-memory` (its DynamoDB Local, Cognito emulator, local queue and worker, upload
 * receiver), an admin invited by the operator's CLI and signed in at the emulator, then what the
 * console does (test/support/npm-start-upload.ts): ask for an upload, POST the file to it
 * (multipart/form-data, fields first), dry-run and commit from the upload, and read until `done`.
 * Every row is granted once: the batch's counts, the program's `issued`, and the grants in DynamoDB
 * Local, one per row and per address. One chunk (of 100 rows) more than the worker takes at once
 * (4 invocations of 2): 900 rows, so a chunk waits and is handed over; the 20,000-row volume and
 * its time are `npm run bench`'s (`upload-batch`), never asserted here.
 */
const WORKER = consumerById('GrantBatchWorker')
const AT_ONCE =
  BATCH_WORK.maxConcurrency * (WORKER.trigger.kind === 'queue' ? WORKER.trigger.batchSize : 1)
const ROWS = (AT_ONCE + 1) * BATCH_LIMITS.chunkRows
let server: NpmStartSession

beforeAll(async () => {
  server = await startNpmStartSession('vs-upload-batch-')
}, 180_000)

it(`grants ${ROWS.toLocaleString('en')} rows from one upload exactly once, to done`, async () => {
  const token = await memberToken(server, 'admin')
  const run = await uploadAndCommit(server, token, uploadCsv(ROWS))
  expect(run.upload.status).toBe(201)
  expect(run.sent).toBe(204)
  expect(run.dry.status).toBe(200)
  expect(run.dry.body.counts).toEqual({ total: ROWS, valid: ROWS, invalid: 0, duplicates: 0 })
  expect(run.committed.status).toBe(202)
  // Each read is 200, or 503 `service_unavailable` when the busy machine made it late; the last 200.
  for (const read of run.reads) expect(read.status === 200 || isBusy(read)).toBe(true)
  expect(run.reads.at(-1)?.status).toBe(200)
  expect(run.batch.status).toBe('done')
  expect(run.batch.counts).toEqual({
    total: ROWS,
    granted: ROWS,
    failed: 0,
    canceled: 0,
    pending: 0,
  })
  expect(await issuedOf(server, token)).toBe(ROWS)
  const grants = await grantsOf(server, server.seed.programs.TEST)
  expect(grants).toHaveLength(ROWS)
  expect(new Set(grants.map((g) => g.recipient.email)).size).toBe(ROWS)
  expect(new Set(grants.map((g) => g.batch?.row)).size).toBe(ROWS)
  expect(grants.every((g) => g.batch?.batchId === run.batchId)).toBe(true)
}, 300_000)
