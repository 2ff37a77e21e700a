import { useState } from 'preact/hooks'
import type { WebhookMessage } from '../../api'
import { useScope } from '../../scope'
import { Alert, DataTable } from '../../ui'
import { formatTime } from '../../ui-format'
import { type Errors, TextField, useAction } from '../../ui-forms'
import { PagedList, usePagedList } from '../../ui-pages'
import { MessageRows } from './message-rows'
import { explainEndpointError, KEEP_DAYS } from './webhook-parts'

/** How often the delivery log is read again while a message waits for an attempt. */
export const WEBHOOKS_POLL_MS = 3_000
/** After a test, a replay: the log is watched this long for the new attempt to show. */
export const WATCH_AFTER_ACTION_MS = 60_000
const WATCH_POLL_MS = 1_500

/** Newest first (a message id starts with its event's time); one read again replaces the one shown. */
const merge = (fresh: WebhookMessage[], shown: WebhookMessage[]) => {
  const byId = new Map(shown.map((m) => [m.messageId, m]))
  for (const message of fresh) byId.set(message.messageId, message)
  return [...byId.values()].sort((a, b) =>
    a.messageId < b.messageId ? 1 : a.messageId > b.messageId ? -1 : 0,
  )
}

/** Whether the log differs from before in what the endpoint's facts depend on. */
const moved = (before: WebhookMessage[], after: WebhookMessage[]) => {
  const seen = new Map(before.map((m) => [m.messageId, m]))
  return after.some((m) => {
    const was = seen.get(m.messageId)
    return !was || was.status !== m.status || was.attempts.length !== m.attempts.length
  })
}
/** `2026-11-26T23:10` (a datetime-local input) in the reader's time zone, as ISO. */
const isoOfLocal = (value: string) => {
  const time = new Date(value).getTime()
  return Number.isNaN(time) ? undefined : new Date(time).toISOString()
}
const localInput = (time: number) => {
  const d = new Date(time)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/** Every message since a time, sent again in the background (owners and admins). */
const ReplaySince = ({
  endpointId,
  onReplayed,
}: {
  endpointId: string
  onReplayed: (text: string) => void
}) => {
  const { api } = useScope()
  const [since, setSince] = useState(() => localInput(Date.now() - 3_600_000))
  const { busy, errors, error, run } = useAction(explainEndpointError(['since']))
  const submit = (event: Event) => {
    event.preventDefault()
    const iso = isoOfLocal(since)
    const problems: Errors = {}
    if (!iso) problems.since = 'Choose a date and time.'
    else if (Date.parse(iso) > Date.now()) problems.since = 'Choose a time in the past.'
    void run(async () => {
      const answer = await api.replayWebhooksSince(endpointId, iso as string)
      onReplayed(
        `Every message since ${formatTime(answer.since)} is being sent again, in the background: new attempts show in the log as they happen.`,
      )
    }, problems)
  }
  return (
    <form class="inline-form replay-since" onSubmit={submit} noValidate>
      <TextField
        label="Replay every message since"
        hint={`Your time zone. Messages are kept ${KEEP_DAYS} days.`}
        error={errors.since}
        type="datetime-local"
        value={since}
        onValue={setSince}
      />
      <button type="submit" disabled={busy}>
        Replay every message since then
      </button>
      <Alert>{error}</Alert>
    </form>
  )
}

export type Watch = { until: number; messageId?: string }

/**
 * The delivery log: newest first, a page at a time ("Load more"); read again every few seconds
 * while a message is pending (or for a while after a test or a replay, until its message shows
 * delivered or failed), and no longer once none is.
 */
export const DeliveryLog = ({
  endpointId,
  admin,
  watch,
  onWatch,
  onMoved,
}: {
  endpointId: string
  admin: boolean
  watch: Watch | undefined
  onWatch: (watch: Watch, text: string) => void
  onMoved: () => void
}) => {
  const { api } = useScope()
  /** How soon the log is read again: while a message waits, or a new one is expected. */
  const pollEvery = (messages: WebhookMessage[]) => {
    const awaited = watch?.messageId
      ? messages.find((m) => m.messageId === watch.messageId)
      : undefined
    const watching =
      watch !== undefined &&
      Date.now() < watch.until &&
      (watch.messageId === undefined || awaited === undefined || awaited.status === 'pending')
    if (!watching && !messages.some((m) => m.status === 'pending')) return undefined
    // A test or replay just asked for: its attempt comes within a second or so.
    return watching ? WATCH_POLL_MS : WEBHOOKS_POLL_MS
  }
  const list = usePagedList({
    load: (params) =>
      api.webhookMessages(endpointId, params).then((page) => ({
        items: page.messages,
        next: page.next ?? null,
      })),
    merge,
    deps: [api, endpointId],
    pollEvery,
    onPolled: (shown, fresh) => {
      if (moved(shown, fresh)) onMoved()
    },
  })

  const replay = async (message: WebhookMessage) => {
    const answer = await api.replayWebhookMessage(endpointId, message.messageId)
    onWatch(
      { until: Date.now() + WATCH_AFTER_ACTION_MS },
      `Message ${answer.messageId} is sent again, with the same webhook-id: its new attempt shows below.`,
    )
  }

  const columns = 6
  return (
    <section class="panel" aria-labelledby="delivery-log">
      <h2 id="delivery-log">Delivery log</h2>
      <p class="hint">
        Every message to this endpoint, newest first, with each attempt; kept {KEEP_DAYS} days. A
        message keeps its <code>webhook-id</code> on every attempt, so the receiver can drop
        repeats. Failed attempts are retried for about 3 days.
      </p>
      {admin ? (
        <ReplaySince
          endpointId={endpointId}
          onReplayed={(text) => onWatch({ until: Date.now() + 20_000 }, text)}
        />
      ) : null}
      <PagedList
        list={list}
        loadingText="Loading the delivery log…"
        emptyText="No messages yet."
        moreLabel="Load more"
      >
        <DataTable
          caption="Messages to this endpoint, newest first"
          columns={['Message', 'Status', 'Created', 'Last attempt', 'Next attempt', 'Details']}
        >
          {list.items.map((message) => (
            <MessageRows
              key={message.messageId}
              message={message}
              admin={admin}
              columns={columns}
              onReplay={replay}
            />
          ))}
        </DataTable>
      </PagedList>
    </section>
  )
}
