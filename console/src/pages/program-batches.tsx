import { useState } from 'preact/hooks'
import type { BatchSummary, Program } from '../api'
import { useScope } from '../scope'
import { can, DataTable, Status, StatusBadge } from '../ui'
import { formatNumber, Time } from '../ui-format'
import { ConfirmButton, PagedList, usePagedList } from '../ui-pages'

/**
 * A program's batches of send to many, from the management API (every batch of the program, not
 * only those this browser sent), newest first, a page at a time ("Show more"). While one is
 * queued, running or canceling, the list is read again every few seconds (its rows per second and
 * the time left with it), and no longer once none is. Admins and owners can cancel one.
 */

/** How often the list is read again while a batch moves. */
export const BATCHES_POLL_MS = 3_000
const MOVING = new Set(['queued', 'running', 'canceling'])
export const CANCELABLE = new Set(['queued', 'running', 'stalled'])

/** `45 s`, `3 min 5 s`, `1 h 20 min`: rounded to what a person reads. */
export const formatDuration = (seconds: number) => {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60)
    const rest = Math.round(seconds % 60)
    return rest === 0 || minutes >= 10 ? `${minutes} min` : `${minutes} min ${rest} s`
  }
  const hours = Math.floor(seconds / 3600)
  const minutes = Math.round((seconds % 3600) / 60)
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`
}

const rowsText = (n: number) => `${formatNumber(n)} ${n === 1 ? 'row' : 'rows'}`

/** What the batch has come to, in words. */
export const progressText = (batch: BatchSummary) => {
  const { total, granted, failed, canceled, pending } = batch.counts
  const parts = [`${formatNumber(granted)} granted`, `${formatNumber(failed)} failed`]
  if (canceled > 0 || batch.status === 'canceled') parts.push(`${formatNumber(canceled)} canceled`)
  if (pending > 0) parts.push(`${formatNumber(pending)} pending`)
  // Canceled rows were never tried: not "done".
  return `${formatNumber(total - pending - canceled)} of ${rowsText(total)} done: ${parts.join(', ')}.`
}

/** How fast, and how long is left, while it runs; how fast it went once finished. */
export const paceText = (batch: BatchSummary) => {
  const rate = batch.rowsPerSecond === null ? '' : `${formatNumber(batch.rowsPerSecond)} rows/s`
  if (batch.status === 'canceling') return rate ? `${rate}, stopping` : 'Stopping'
  if (batch.status === 'stalled') return 'Stalled: nothing is moving'
  if (batch.status === 'queued' && batch.startedAt === null) return 'Waiting to start'
  if (batch.status === 'done' || batch.status === 'canceled') return rate
  if (batch.etaSeconds === null) return rate || 'Measuring…'
  return `${rate}, about ${formatDuration(batch.etaSeconds)} left`
}

/** Newest first; a batch read again replaces the one shown. */
const merge = (fresh: BatchSummary[], shown: BatchSummary[]) => {
  const byId = new Map(shown.map((b) => [b.id, b]))
  for (const batch of fresh) byId.set(batch.id, batch)
  return [...byId.values()].sort((a, b) =>
    a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt),
  )
}

/** What a cancel came to, in words. */
export const cancelMessage = (batch: BatchSummary) =>
  batch.status === 'canceling'
    ? `Batch ${batch.id} is canceling: rows not yet sent will not be sent; ${formatNumber(batch.counts.granted)} granted so far stay granted.`
    : `Batch ${batch.id} is ${batch.status}: ${progressText(batch)}`

/**
 * Cancel, for admins and owners: asks first (what stops, what stays), then answers the batch as the
 * service has it (`canceling`); a batch that finished meanwhile is said so, next to the button.
 */
export const CancelBatch = ({
  programId,
  batch,
  onCanceled,
}: {
  programId: string
  batch: BatchSummary
  onCanceled: (batch: BatchSummary) => void
}) => {
  const { api } = useScope()
  return (
    <ConfirmButton
      label="Cancel"
      busyLabel="Canceling…"
      buttonLabel={`Cancel batch ${batch.id}`}
      buttonClass="danger"
      title={`Cancel batch ${batch.id}?`}
      confirmLabel="Cancel the batch"
      closeLabel="Keep sending"
      danger
      onConfirm={async () => onCanceled(await api.cancelBatch(programId, batch.id))}
    >
      <p>
        Rows not yet sent will not be sent: they end <strong>canceled</strong>. The{' '}
        {formatNumber(batch.counts.granted)} rows granted so far stay granted (a grant is canceled
        on its own page), and a row being granted at this very moment may still be.
      </p>
      <p>
        {rowsText(batch.counts.pending)} of {formatNumber(batch.counts.total)} are still pending.
      </p>
    </ConfirmButton>
  )
}

export const ProgramBatches = ({ program }: { program: Program }) => {
  const scope = useScope()
  const { api } = scope
  const [message, setMessage] = useState('')
  const list = usePagedList({
    load: (params) =>
      api.listBatches(program.id, params).then((page) => ({
        items: page.data,
        next: page.nextCursor,
      })),
    merge,
    deps: [api, program.id],
    pollEvery: (shown) => (shown.some((b) => MOVING.has(b.status)) ? BATCHES_POLL_MS : undefined),
  })
  const batches = list.items

  const afterCancel = (batch: BatchSummary) => {
    list.put([batch])
    setMessage(cancelMessage(batch))
  }

  const admin = can(scope.role, 'admin')
  return (
    <section aria-labelledby="batches">
      <h2 id="batches">Batches</h2>
      {message ? <Status>{message}</Status> : null}
      <PagedList
        list={list}
        loadingText="Loading batches…"
        emptyText="No batches have been sent to this program yet."
        moreLabel="Show more batches"
      >
        <DataTable
          caption="Batches of this program, newest first"
          columns={['Batch', 'Status', 'Progress', 'Speed', admin && 'Actions']}
        >
          {batches.map((batch) => {
            const { total, pending, canceled } = batch.counts
            const done = total - pending - canceled
            return (
              <tr key={batch.id}>
                <th scope="row">
                  <a href={scope.at(`programs/${program.id}/batches/${batch.id}`)}>
                    Batch <code>{batch.id}</code>
                  </a>
                  <div class="hint">
                    <Time iso={batch.createdAt} /> by {batch.createdBy.email}
                  </div>
                </th>
                <td>
                  <StatusBadge status={batch.status} />
                  {batch.deadLetteredChunks > 0 ? (
                    <div class="hint">
                      {batch.deadLetteredChunks} chunk
                      {batch.deadLetteredChunks === 1 ? '' : 's'} in the dead letters
                    </div>
                  ) : null}
                </td>
                <td class="text">
                  <progress
                    max={total}
                    value={done}
                    aria-label={`Progress of batch ${batch.id}`}
                    aria-valuetext={`${done} of ${total} rows done`}
                  />
                  <div>{progressText(batch)}</div>
                </td>
                <td class="text">{paceText(batch)}</td>
                {admin ? (
                  <td>
                    {CANCELABLE.has(batch.status) ? (
                      <CancelBatch programId={program.id} batch={batch} onCanceled={afterCancel} />
                    ) : null}
                  </td>
                ) : null}
              </tr>
            )
          })}
        </DataTable>
      </PagedList>
    </section>
  )
}
