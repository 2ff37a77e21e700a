/**
 * Send to many from one upload under a real `npm start -- --in-memory` (issue 20; `npm run bench`,
 * row `upload-batch`): an admin invited by the operator's CLI, signed in at the emulator, uploads a
 * 20,000-row CSV as the console does, dry-runs and commits it (test/support/npm-start-upload.ts),
 * and the time from the commit to `done` is measured. The run is exact or it fails: every row
 * granted once (the batch's counts, the program's `issued`, one grant per row and per address in
 * DynamoDB Local). test/local/npm-start-upload-batch.test.ts checks the same at 1,000 rows.
 *
 * Run alone: `node --import tsx bench/upload-batch.ts` prints the figures as JSON.
 */
import { memberToken, startNpmStartSession } from '../test/support/npm-start-session'
import {
  exactnessProblems,
  grantsOf,
  issuedOf,
  uploadAndCommit,
  uploadCsv,
} from '../test/support/npm-start-upload'
import { runAsScript } from './support/script'

export const UPLOAD_ROWS = 20_000

export type UploadBatchFigures = {
  rows: number
  commitMs: number
  doneSeconds: number
  rowsPerSecond: number
  exact: boolean
}

export const measureUploadBatch = async (rows = UPLOAD_ROWS): Promise<UploadBatchFigures> => {
  const server = await startNpmStartSession('vs-bench-upload-')
  try {
    const token = await memberToken(server, 'admin')
    const run = await uploadAndCommit(server, token, uploadCsv(rows))
    const counts = run.batch.counts as { granted: number; failed: number }
    const problems = exactnessProblems(
      rows,
      run.batchId,
      await grantsOf(server, server.seed.programs.TEST),
      await issuedOf(server, token),
    )
    if (run.batch.status !== 'done' || counts.granted !== rows || counts.failed !== 0) {
      problems.push(`the batch ended ${run.batch.status}: ${JSON.stringify(run.batch.counts)}`)
    }
    if (problems.length > 0) throw new Error(`not exact: ${problems.join('; ')}`)
    const doneSeconds = run.doneMs / 1000
    return {
      rows,
      commitMs: run.commitMs,
      doneSeconds: Number(doneSeconds.toFixed(1)),
      rowsPerSecond: Math.round(rows / doneSeconds),
      exact: true,
    }
  } finally {
    await server.stop()
  }
}

runAsScript(import.meta.url, measureUploadBatch)
