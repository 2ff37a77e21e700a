import { useEffect, useRef, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { type BatchPreview, newIdempotencyKey } from '../api'
import { fileProblem, megabytes, sendFile } from '../batch-upload'
import { pendingCommits } from '../batches'
import { CsvDownloadButton, downloadCsvPages } from '../csv-download'
import { useScope } from '../scope'
import {
  Alert,
  can,
  explainApiError,
  Field,
  formatNumber,
  inputValue,
  Pager,
  PageTitle,
  Status,
  StatusBadge,
  TextField,
  Time,
  useAction,
  useLoad,
  usePager,
} from '../ui'
import { GRANT_RULES } from './program'
import { CANCELABLE, CancelBatch, cancelMessage, paceText } from './program-batches'

/**
 * Send to many: a CSV is checked by the service (a dry run: every row with the grant API's rules,
 * duplicates, the pool), shown row by row, then committed as a batch the service grants in the
 * background. The batch has an address of its own: leave, come back, it is still there.
 */

const useProgram = (programId: string) => {
  const { api } = useScope()
  return useLoad(() => api.program(programId), [api, programId])
}

const poolText = (preview: BatchPreview) => {
  const { pool, amount } = preview
  if (!pool.limited) return `${formatNumber(amount)} shares; the program has no pool limit.`
  return pool.enough
    ? `${formatNumber(amount)} shares of the ${formatNumber(pool.remaining ?? 0)} left in the pool: enough.`
    : `${formatNumber(amount)} shares, but only ${formatNumber(pool.remaining ?? 0)} are left in the pool: short by ${formatNumber(pool.shortBy)}. Rows past the pool will fail with pool_exhausted.`
}

/** A file larger than this goes to the upload bucket; smaller ones too (one path for files). */
const MAX_UPLOAD_BYTES = 32 * 1024 * 1024

type Source = { csv: string } | { upload: string }
type Problem = BatchPreview['problems'][number]

export const SendManyPage = ({ programId }: { programId: string }) => {
  const scope = useScope()
  const { api } = scope
  const { route } = useLocation()
  const { data: program, error: programError } = useProgram(programId)
  const [csv, setCsv] = useState('')
  const [file, setFile] = useState<File>()
  const [reason, setReason] = useState('')
  const [progress, setProgress] = useState('')
  // The server's findings about an upload are the file field's.
  const { busy, errors, error, run, setErrors } = useAction((e) =>
    explainApiError(e, { upload: 'csv' }),
  )
  const more = useAction()
  const [preview, setPreview] = useState<{
    result: BatchPreview
    problems: Problem[]
    cursor: number | null
    key: string
    source: Source
    reason: string
  }>()

  const changed = () => setPreview(undefined)

  const chooseFile = (chosen: File | undefined) => {
    changed()
    setProgress('')
    if (!chosen) {
      setFile(undefined)
      return
    }
    const problem = fileProblem(chosen, MAX_UPLOAD_BYTES)
    setErrors(problem ? { csv: problem } : {})
    setFile(problem ? undefined : chosen)
  }

  /** The file goes to the upload bucket first; pasted text is sent in the body. */
  const sourceOf = async (): Promise<Source> => {
    if (!file) return { csv }
    setProgress('Uploading the file…')
    const upload = await api.batchUpload(programId)
    await sendFile(upload, file, (sent, total) =>
      setProgress(`Uploading the file: ${Math.floor((sent / total) * 100)}%`),
    )
    setProgress('Checking the rows…')
    return { upload: upload.uploadId }
  }

  const check = (event: Event) => {
    event.preventDefault()
    void run(
      async () => {
        try {
          const source = await sourceOf()
          const extra = reason.trim() === '' ? {} : { reason }
          const result = await api.checkBatch(programId, { ...source, ...extra })
          setPreview({
            result,
            problems: result.problems,
            cursor: result.problemsCursor,
            key: newIdempotencyKey('batch'),
            source,
            reason: reason.trim() === '' ? '' : reason,
          })
        } finally {
          setProgress('')
        }
      },
      !file && csv.trim() === '' ? { csv: 'Choose a CSV file or paste the CSV.' } : {},
    )
  }

  /** The next page of the dry run's problems (a large CSV's are listed a page at a time). */
  const moreProblems = () =>
    more.run(async () => {
      if (!preview || preview.cursor === null) return
      const result = await api.checkBatch(programId, {
        ...preview.source,
        ...(preview.reason ? { reason: preview.reason } : {}),
        problemsFrom: preview.cursor,
      })
      setPreview({
        ...preview,
        problems: [...preview.problems, ...result.problems],
        cursor: result.problemsCursor,
      })
    })

  const commit = () =>
    run(async () => {
      if (!preview) return
      const body = { ...preview.source, ...(preview.reason ? { reason: preview.reason } : {}) }
      const batch = await api.commitBatch(programId, body, preview.key)
      pendingCommits.set(batch.id, { ...body, key: preview.key })
      route(scope.at(`programs/${programId}/batches/${batch.id}`))
    })

  if (programError) return <Alert>{programError}</Alert>
  const name = program?.name ?? programId
  const valid = preview?.result.counts.valid ?? 0
  const problemCount = preview
    ? preview.result.counts.invalid + preview.result.counts.duplicates
    : 0
  return (
    <>
      <p class="crumbs">
        <a href={scope.at('programs')}>Programs</a> ›{' '}
        <a href={scope.at(`programs/${programId}`)}>{name}</a> ›
      </p>
      <PageTitle title={`Send to many: ${name}`}>Send to many</PageTitle>
      <p class="lede">
        Grants of <strong>{name}</strong> ({program?.mode ?? scope.mode}) to every row of a CSV
        file. Nothing is sent until you have seen the check and confirmed.
      </p>
      {!can(scope.role, 'admin') ? (
        <Alert>Your role ({scope.role}) cannot send grants.</Alert>
      ) : (
        <>
          <section class="panel" aria-labelledby="csv-rules">
            <h2 id="csv-rules">The CSV</h2>
            <p>
              A header row with the columns <code>email</code> and <code>amount</code>, and
              optionally <code>name</code> and <code>reason</code>, in any order. At most 50,000
              rows: a file of up to 32 MB, or up to 1 MB pasted. Each row follows the rules of one
              grant:
            </p>
            <ul class="rules">
              <li>email: {GRANT_RULES.email}</li>
              <li>amount: {GRANT_RULES.amount}</li>
              <li>name: {GRANT_RULES.name}</li>
              <li>reason: {GRANT_RULES.reason} A row without one takes the batch's reason.</li>
            </ul>
            <p>
              A row with the same e-mail, amount and reason as an earlier row is a duplicate and is
              not sent: give the rows different reasons to grant the same amount twice on purpose.
            </p>
            <figure>
              <figcaption>Example</figcaption>
              <pre class="example">
                {
                  'email,name,amount,reason\nann@example.com,Ann,10,Referral bonus\nbob@example.com,,5,Referral bonus'
                }
              </pre>
            </figure>
          </section>
          <form onSubmit={check} noValidate>
            <Field
              label="CSV file"
              hint={
                file
                  ? `${file.name}, ${megabytes(file.size)}: uploaded when you check it.`
                  : 'A .csv file of up to 32 MB.'
              }
              error={errors.csv}
            >
              {(props) => (
                <input
                  {...props}
                  type="file"
                  accept=".csv,text/csv,text/plain"
                  disabled={busy}
                  onChange={(event) =>
                    chooseFile((event.currentTarget as HTMLInputElement).files?.[0])
                  }
                />
              )}
            </Field>
            {file ? null : (
              <Field label="CSV text" hint="Or paste the CSV here (up to 1 MB).">
                {(props) => (
                  <textarea
                    {...props}
                    rows={6}
                    spellcheck={false}
                    value={csv}
                    onInput={(e) => {
                      setCsv(inputValue(e))
                      changed()
                    }}
                  />
                )}
              </Field>
            )}
            <TextField
              label="Reason for rows without one (optional)"
              hint={GRANT_RULES.reason}
              error={errors.reason}
              value={reason}
              onValue={(value) => {
                setReason(value)
                changed()
              }}
            />
            {progress ? (
              <p role="status" aria-live="polite">
                {progress}
              </p>
            ) : null}
            {!preview ? <Alert>{error}</Alert> : null}
            <div class="actions">
              <button type="submit" disabled={busy}>
                Check the CSV
              </button>
            </div>
          </form>
        </>
      )}
      {preview ? (
        <section class="panel" aria-labelledby="batch-preview">
          <h2 id="batch-preview">Check before sending</h2>
          <dl class="facts">
            <div>
              <dt>Rows</dt>
              <dd>{formatNumber(preview.result.counts.total)}</dd>
            </div>
            <div>
              <dt>Ready to send</dt>
              <dd>{formatNumber(preview.result.counts.valid)}</dd>
            </div>
            <div>
              <dt>With errors</dt>
              <dd>{formatNumber(preview.result.counts.invalid)}</dd>
            </div>
            <div>
              <dt>Duplicates</dt>
              <dd>{formatNumber(preview.result.counts.duplicates)}</dd>
            </div>
            <div>
              <dt>Pool check</dt>
              <dd>{poolText(preview.result)}</dd>
            </div>
          </dl>
          {preview.result.programStatus !== 'active' ? (
            <Alert>
              The program is {preview.result.programStatus}: it cannot take this batch until it is
              active.
            </Alert>
          ) : null}
          {preview.problems.length > 0 ? (
            <div class="table-box">
              <table>
                <caption>
                  Rows that will not be sent
                  {preview.cursor === null
                    ? ''
                    : ` (the first ${formatNumber(preview.problems.length)} of ${formatNumber(problemCount)})`}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Row</th>
                    <th scope="col">Problem</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {preview.problems.map((problem) => (
                    <tr key={problem.row}>
                      <th scope="row">Row {problem.row}</th>
                      <td>
                        {problem.code === 'duplicate_row'
                          ? `Duplicate of row ${problem.duplicateOf}`
                          : 'Invalid'}
                      </td>
                      <td class="text">
                        {problem.errors && problem.errors.length > 0 ? (
                          <ul class="plain">
                            {problem.errors.map((e) => (
                              <li key={e.field}>
                                {e.field}: {e.message}
                              </li>
                            ))}
                          </ul>
                        ) : (
                          problem.message
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p>Every row is ready to send.</p>
          )}
          {preview.cursor === null ? null : (
            <div class="actions">
              <button type="button" onClick={moreProblems} disabled={more.busy}>
                Show more rows with problems
              </button>
              <Alert>{more.error}</Alert>
            </div>
          )}
          <Alert>{error}</Alert>
          <div class="actions">
            <button
              type="button"
              class="primary"
              onClick={commit}
              disabled={busy || valid === 0 || preview.result.programStatus !== 'active'}
            >
              Send {formatNumber(valid)} grant{valid === 1 ? '' : 's'}
            </button>
            <button type="button" onClick={changed} disabled={busy}>
              Start over
            </button>
          </div>
        </section>
      ) : null}
    </>
  )
}

const POLL_MS = 1000

export const BatchPage = ({ programId, batchId }: { programId: string; batchId: string }) => {
  const scope = useScope()
  const { data: program } = useProgram(programId)
  const pager = usePager()
  const [status, setStatus] = useState('')
  const [tick, setTick] = useState(0)
  const resume = useAction()
  const { data: batch, error } = useLoad(
    () => scope.api.batch(programId, batchId, { cursor: pager.cursor, status }),
    [scope.api, programId, batchId, pager.cursor, status, tick],
  )
  const [canceledNow, setCanceledNow] = useState('')
  // A batch being canceled still moves: read it until it is final.
  const running =
    batch !== undefined &&
    (batch.status === 'queued' || batch.status === 'running' || batch.status === 'canceling')
  const timer = useRef<number | undefined>(undefined)
  useEffect(() => {
    if (!running) return
    timer.current = window.setTimeout(() => setTick((t) => t + 1), POLL_MS)
    return () => window.clearTimeout(timer.current)
  }, [running, batch])

  if (error) {
    return (
      <>
        <PageTitle title="Batch not found">Batch not found</PageTitle>
        <Alert>{error}</Alert>
      </>
    )
  }
  const counts = batch?.counts
  const done = counts ? counts.granted + counts.failed : 0
  const pending = pendingCommits.get(batchId)
  return (
    <>
      <p class="crumbs">
        <a href={scope.at('programs')}>Programs</a> ›{' '}
        <a href={scope.at(`programs/${programId}`)}>{program?.name ?? programId}</a> ›
      </p>
      <PageTitle title={`Batch ${batchId}`}>Batch {batchId}</PageTitle>
      {!batch || !counts ? (
        <p role="status">Loading the batch…</p>
      ) : (
        <>
          <dl class="facts">
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={batch.status} />
              </dd>
            </div>
            <div>
              <dt>Sent by</dt>
              <dd>{batch.createdBy.email}</dd>
            </div>
            <div>
              <dt>Committed</dt>
              <dd>
                <Time iso={batch.createdAt} />
              </dd>
            </div>
            {batch.finishedAt ? (
              <div>
                <dt>Finished</dt>
                <dd>
                  <Time iso={batch.finishedAt} />
                </dd>
              </div>
            ) : null}
            <div>
              <dt>Shares</dt>
              <dd>{formatNumber(batch.amount)}</dd>
            </div>
          </dl>
          <div class="progress">
            <progress
              max={counts.total}
              value={done}
              aria-label="Batch progress"
              aria-valuetext={`${done} of ${counts.total} rows done`}
            />
            <p role="status" aria-live="polite">
              {batch.status === 'done'
                ? 'Done: '
                : batch.status === 'stalled'
                  ? 'Stalled: '
                  : batch.status === 'canceled'
                    ? 'Canceled: '
                    : batch.status === 'canceling'
                      ? 'Canceling: '
                      : 'Sending: '}
              {formatNumber(done)} of {formatNumber(counts.total)} rows done,{' '}
              {formatNumber(counts.granted)} granted, {formatNumber(counts.failed)} failed,{' '}
              {counts.canceled > 0 ? `${formatNumber(counts.canceled)} canceled, ` : ''}
              {formatNumber(counts.pending)} pending.
            </p>
            {paceText(batch) ? <p class="hint">{paceText(batch)}</p> : null}
            {canceledNow ? <Status>{canceledNow}</Status> : null}
            {can(scope.role, 'admin') && CANCELABLE.has(batch.status) ? (
              <div class="actions">
                <CancelBatch
                  programId={programId}
                  batch={batch}
                  onCanceled={(answer) => {
                    setCanceledNow(cancelMessage(answer))
                    setTick((t) => t + 1)
                  }}
                />
              </div>
            ) : null}
          </div>
          {batch.status === 'stalled' ? (
            <div class="panel">
              <p>
                Nothing has moved for a minute. A stalled batch resumes when its commit is sent
                again with the same key; no row is ever granted twice.
              </p>
              {pending ? (
                <button
                  type="button"
                  disabled={resume.busy}
                  onClick={() =>
                    resume.run(async () => {
                      const { key, ...body } = pending
                      await scope.api.commitBatch(programId, body, key)
                      setTick((t) => t + 1)
                    })
                  }
                >
                  Resume the batch
                </button>
              ) : (
                <p class="hint">
                  This browser no longer has the batch's CSV: send the same CSV again from the same
                  tab to resume, or ask whoever sent it.
                </p>
              )}
              <Alert>{resume.error}</Alert>
            </div>
          ) : null}
          <div class="toolbar">
            <Field label="Show rows">
              {(props) => (
                <select
                  {...props}
                  value={status}
                  onChange={(e) => {
                    pager.reset()
                    setStatus(inputValue(e))
                  }}
                >
                  <option value="">All</option>
                  <option value="granted">Granted</option>
                  <option value="canceled">Canceled</option>
                  <option value="failed">Failed</option>
                  <option value="pending">Pending</option>
                </select>
              )}
            </Field>
            <CsvDownloadButton
              label={status ? `Download ${status} rows (CSV)` : 'Download rows (CSV)'}
              download={() =>
                downloadCsvPages(
                  (cursor) => scope.api.batchCsv(programId, batchId, { cursor, status }),
                  `batch-${batchId}${status ? `-${status}` : ''}.csv`,
                )
              }
              done={(rows) =>
                `Downloaded ${formatNumber(rows)} ${rows === 1 ? 'row' : 'rows'} as CSV. To send rows again, send the file (fixed where needed) as a new batch: a batch ignores its result_ columns.`
              }
            />
          </div>
          <div class="table-box">
            <table>
              <caption>Rows of the batch, in CSV order</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Result</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {batch.rows.map((row) => (
                  <tr key={row.row}>
                    <th scope="row">Row {row.row}</th>
                    <td class="text">{row.email}</td>
                    <td class="num">
                      {typeof row.amount === 'number' ? formatNumber(row.amount) : row.amount}
                    </td>
                    <td>
                      <StatusBadge status={row.status} />
                    </td>
                    <td>
                      {row.status === 'granted' ? (
                        <code>{row.grantId}</code>
                      ) : row.status === 'failed' ? (
                        `${row.code}: ${row.message}`
                      ) : (
                        ''
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Row pages" pager={pager} nextCursor={batch.nextCursor} />
          <p>
            <a href={scope.at(`programs/${programId}`)}>Back to {program?.name ?? 'the program'}</a>
          </p>
        </>
      )}
    </>
  )
}
