import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { isProgramOpen } from '../../../functions/domain/program'
import { type BatchPreview, newIdempotencyKey } from '../api'
import { fileProblem, megabytes, sendFile } from '../batch-upload'
import { pendingCommits } from '../batches'
import { GRANT_RULES } from '../grant-rules'
import { useScope } from '../scope'
import { Alert, can, DataTable, Facts, PageTitle } from '../ui'
import { formatNumber } from '../ui-format'
import { explainApiError, Field, TextAreaField, TextField, useAction } from '../ui-forms'
import { ProgramCrumbs, useProgram } from '../ui-pages'

/**
 * Send to many: a CSV is checked by the service (a dry run: every row with the grant API's rules,
 * duplicates, the pool), shown row by row, then committed as a batch the service grants in the
 * background. The batch has an address of its own: leave, come back, it is still there.
 */

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

type Preview = {
  result: BatchPreview
  problems: Problem[]
  cursor: number | null
  key: string
  source: Source
  reason: string
}

/**
 * The CSV (a file, uploaded first, or pasted text) and the batch's reason; the dry run, its
 * problems a page at a time, and the commit, which opens the batch's own page.
 */
const useBatchCheck = (programId: string) => {
  const scope = useScope()
  const { api } = scope
  const { route } = useLocation()

  const [csv, setCsv] = useState('')
  const [file, setFile] = useState<File>()
  const [reason, setReason] = useState('')
  const [progress, setProgress] = useState('')
  // The server's findings about an upload are the file field's.
  const { busy, errors, error, run, setErrors } = useAction((e) =>
    explainApiError(e, { upload: 'csv' }),
  )
  const more = useAction()
  const [preview, setPreview] = useState<Preview>()

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
  return {
    csv,
    setCsv,
    file,
    reason,
    setReason,
    progress,
    busy,
    errors,
    error,
    more,
    preview,
    changed,
    chooseFile,
    check,
    moreProblems,
    commit,
  }
}

/** What the CSV holds, and the rules each row follows. */
const CsvRules = () => (
  <section class="panel" aria-labelledby="csv-rules">
    <h2 id="csv-rules">The CSV</h2>
    <p>
      A header row with the columns <code>email</code> and <code>amount</code>, and optionally{' '}
      <code>name</code> and <code>reason</code>, in any order. At most 50,000 rows: a file of up to
      32 MB, or up to 1 MB pasted. Each row follows the rules of one grant:
    </p>
    <ul class="rules">
      <li>email: {GRANT_RULES.email}</li>
      <li>amount: {GRANT_RULES.amount}</li>
      <li>name: {GRANT_RULES.name}</li>
      <li>reason: {GRANT_RULES.reason} A row without one takes the batch's reason.</li>
    </ul>
    <p>
      A row with the same e-mail, amount and reason as an earlier row is a duplicate and is not
      sent: give the rows different reasons to grant the same amount twice on purpose.
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
)

/** The dry run's findings: counts, the pool, the rows that will not be sent; then the send. */
const PreviewPanel = ({
  preview,
  busy,
  error,
  more,
  onMore,
  onCommit,
  onStartOver,
}: {
  preview: Preview
  busy: boolean
  error: string
  more: { busy: boolean; error: string }
  onMore: () => void
  onCommit: () => void
  onStartOver: () => void
}) => {
  const valid = preview.result.counts.valid
  const open = isProgramOpen({ status: preview.result.programStatus })
  const problemCount = preview.result.counts.invalid + preview.result.counts.duplicates
  return (
    <section class="panel" aria-labelledby="batch-preview">
      <h2 id="batch-preview">Check before sending</h2>
      <Facts
        facts={[
          ['Rows', formatNumber(preview.result.counts.total)],
          ['Ready to send', formatNumber(preview.result.counts.valid)],
          ['With errors', formatNumber(preview.result.counts.invalid)],
          ['Duplicates', formatNumber(preview.result.counts.duplicates)],
          ['Pool check', poolText(preview.result)],
        ]}
      />
      {!open ? (
        <Alert>
          The program is {preview.result.programStatus}: it cannot take this batch until it is
          active.
        </Alert>
      ) : null}
      {preview.problems.length > 0 ? (
        <DataTable
          caption={
            <>
              Rows that will not be sent
              {preview.cursor === null
                ? ''
                : ` (the first ${formatNumber(preview.problems.length)} of ${formatNumber(problemCount)})`}
            </>
          }
          columns={['Row', 'Problem', 'Details']}
        >
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
        </DataTable>
      ) : (
        <p>Every row is ready to send.</p>
      )}
      {preview.cursor === null ? null : (
        <div class="actions">
          <button type="button" onClick={onMore} disabled={more.busy}>
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
          onClick={onCommit}
          disabled={busy || valid === 0 || !open}
        >
          Send {formatNumber(valid)} grant{valid === 1 ? '' : 's'}
        </button>
        <button type="button" onClick={onStartOver} disabled={busy}>
          Start over
        </button>
      </div>
    </section>
  )
}

export const SendManyPage = ({ programId }: { programId: string }) => {
  const scope = useScope()
  const { data: program, error: programError } = useProgram(programId)
  const batch = useBatchCheck(programId)
  const { file, busy, errors, preview, changed } = batch

  if (programError) return <Alert>{programError}</Alert>
  const name = program?.name ?? programId
  return (
    <>
      <ProgramCrumbs programId={programId} name={name} />
      <PageTitle title={`Send to many: ${name}`}>Send to many</PageTitle>
      <p class="lede">
        Grants of <strong>{name}</strong> ({program?.mode ?? scope.mode}) to every row of a CSV
        file. Nothing is sent until you have seen the check and confirmed.
      </p>
      {!can(scope.role, 'admin') ? (
        <Alert>Your role ({scope.role}) cannot send grants.</Alert>
      ) : (
        <>
          <CsvRules />
          <form onSubmit={batch.check} noValidate>
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
                    batch.chooseFile((event.currentTarget as HTMLInputElement).files?.[0])
                  }
                />
              )}
            </Field>
            {file ? null : (
              <TextAreaField
                label="CSV text"
                hint="Or paste the CSV here (up to 1 MB)."
                rows={6}
                spellcheck={false}
                value={batch.csv}
                onValue={(csv) => {
                  batch.setCsv(csv)
                  changed()
                }}
              />
            )}
            <TextField
              label="Reason for rows without one (optional)"
              hint={GRANT_RULES.reason}
              error={errors.reason}
              value={batch.reason}
              onValue={(value) => {
                batch.setReason(value)
                changed()
              }}
            />
            {batch.progress ? (
              <p role="status" aria-live="polite">
                {batch.progress}
              </p>
            ) : null}
            {!preview ? <Alert>{batch.error}</Alert> : null}
            <div class="actions">
              <button type="submit" disabled={busy}>
                Check the CSV
              </button>
            </div>
          </form>
        </>
      )}
      {preview ? (
        <PreviewPanel
          preview={preview}
          busy={busy}
          error={batch.error}
          more={batch.more}
          onMore={batch.moreProblems}
          onCommit={batch.commit}
          onStartOver={changed}
        />
      ) : null}
    </>
  )
}
