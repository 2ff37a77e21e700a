import { useEffect, useRef, useState } from 'preact/hooks'
import type { Batch } from '../api'
import { pendingCommits } from '../batches'
import { CsvDownloadButton, downloadCsvPages } from '../csv-download'
import { useScope } from '../scope'
import {
  Alert,
  can,
  DataTable,
  Facts,
  Pager,
  PageTitle,
  Status,
  StatusBadge,
  useLoad,
  usePager,
} from '../ui'
import { formatNumber, Time } from '../ui-format'
import { Field, inputValue, useAction } from '../ui-forms'
import { ProgramCrumbs, useProgram } from '../ui-pages'
import { CANCELABLE, CancelBatch, cancelMessage, paceText } from './program-batches'

/**
 * A batch of send to many, at its own address: its facts, its progress (read every second while
 * it moves), a stalled batch's resume, and its rows a page at a time.
 */

const BatchFacts = ({ batch }: { batch: Batch }) => (
  <Facts
    facts={[
      ['Status', <StatusBadge status={batch.status} />],
      ['Sent by', batch.createdBy.email],
      ['Committed', <Time iso={batch.createdAt} />],
      batch.finishedAt ? ['Finished', <Time iso={batch.finishedAt} />] : null,
      ['Shares', formatNumber(batch.amount)],
    ]}
  />
)

/** Rows done of all, in words and as a bar; owners and admins cancel a batch that moves. */
const BatchProgress = ({
  programId,
  batch,
  onCanceled,
}: {
  programId: string
  batch: Batch
  onCanceled: () => void
}) => {
  const { role } = useScope()
  const [canceledNow, setCanceledNow] = useState('')
  const { counts } = batch
  const done = counts.granted + counts.failed
  return (
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
      {can(role, 'admin') && CANCELABLE.has(batch.status) ? (
        <div class="actions">
          <CancelBatch
            programId={programId}
            batch={batch}
            onCanceled={(answer) => {
              setCanceledNow(cancelMessage(answer))
              onCanceled()
            }}
          />
        </div>
      ) : null}
    </div>
  )
}

/** A batch nothing has moved for a minute: resumed by sending its commit again, if this tab can. */
const StalledBatch = ({
  programId,
  batchId,
  onResumed,
}: {
  programId: string
  batchId: string
  onResumed: () => void
}) => {
  const { api } = useScope()
  const resume = useAction()
  const pending = pendingCommits.get(batchId)
  return (
    <div class="panel">
      <p>
        Nothing has moved for a minute. A stalled batch resumes when its commit is sent again with
        the same key; no row is ever granted twice.
      </p>
      {pending ? (
        <button
          type="button"
          disabled={resume.busy}
          onClick={() =>
            resume.run(async () => {
              const { key, ...body } = pending
              await api.commitBatch(programId, body, key)
              onResumed()
            })
          }
        >
          Resume the batch
        </button>
      ) : (
        <p class="hint">
          This browser no longer has the batch's CSV: send the same CSV again from the same tab to
          resume, or ask whoever sent it.
        </p>
      )}
      <Alert>{resume.error}</Alert>
    </div>
  )
}

const BatchRows = ({ batch }: { batch: Batch }) => (
  <DataTable
    caption="Rows of the batch, in CSV order"
    columns={['Row', 'E-mail', 'Amount', 'Result', 'Details']}
  >
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
  </DataTable>
)

const POLL_MS = 1000

export const BatchPage = ({ programId, batchId }: { programId: string; batchId: string }) => {
  const scope = useScope()
  const { data: program } = useProgram(programId)
  const pager = usePager()
  const [status, setStatus] = useState('')
  const [tick, setTick] = useState(0)

  const { data: batch, error } = useLoad(
    () => scope.api.batch(programId, batchId, { cursor: pager.cursor, status }),
    [scope.api, programId, batchId, pager.cursor, status, tick],
  )

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
  return (
    <>
      <ProgramCrumbs programId={programId} name={program?.name} />
      <PageTitle title={`Batch ${batchId}`}>Batch {batchId}</PageTitle>
      {!batch || !counts ? (
        <p role="status">Loading the batch…</p>
      ) : (
        <>
          <BatchFacts batch={batch} />
          <BatchProgress
            programId={programId}
            batch={batch}
            onCanceled={() => setTick((t) => t + 1)}
          />
          {batch.status === 'stalled' ? (
            <StalledBatch
              programId={programId}
              batchId={batchId}
              onResumed={() => setTick((t) => t + 1)}
            />
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
          <BatchRows batch={batch} />
          <Pager label="Row pages" pager={pager} nextCursor={batch.nextCursor} />
          <p>
            <a href={scope.at(`programs/${programId}`)}>Back to {program?.name ?? 'the program'}</a>
          </p>
        </>
      )}
    </>
  )
}
