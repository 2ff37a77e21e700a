import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import {
  ApiError,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEndpointBody,
  type WebhookEventKind,
  type WebhookMessage,
} from '../api'
import { useScope } from '../scope'
import {
  Alert,
  CopyButton,
  can,
  type Errors,
  type Explained,
  errorText,
  Field,
  FormEnd,
  formatNumber,
  formatTime,
  inputValue,
  PageTitle,
  Status,
  StatusBadge,
  TextField,
  Time,
  useAction,
  useLoad,
} from '../ui'
import { ConfirmButton, NotFound, PagedList, usePagedList } from '../ui-pages'

/**
 * Webhooks (issue 21) of one issuer in one mode: the endpoints that receive its events, signed
 * with the Standard Webhooks scheme; for owners and admins, adding one (its signing secret shown
 * once), rotating its secret, enabling, disabling, changing, deleting and testing it. Each
 * endpoint's page has its delivery log: every message newest first, each with every attempt,
 * replayed one at a time or all since a time, read again every few seconds only while a message
 * still waits for an attempt. Viewers see all of it without the buttons (the API refuses them).
 */

/**
 * What each event kind means. A record by the server's own type (functions/domain/webhooks.ts
 * WEBHOOK_EVENT_KINDS, imported as a type only: that module needs node:crypto): a kind added or
 * removed there fails the console's typecheck until it is said here too.
 */
export const KIND_MEANINGS: Record<WebhookEventKind, string> = {
  'grant.created': 'A grant was made (before its offer is sent).',
  'grant.offered': 'The recipient identified and may now accept the offer.',
  'grant.accepted': 'The recipient accepted the shares.',
  'grant.rejected': 'The recipient declined, or a rule refused them (with the reason).',
  'grant.expired': 'The offer window ended without an answer.',
  'grant.canceled': 'The issuer or an API key canceled the grant.',
  'grant.delivery_failed': 'The offer e-mail bounced, was reported as spam, or failed.',
  'batch.completed': 'A batch of send to many finished or was canceled.',
  'program.pool_low': "A program's remaining pool fell to its pool-low threshold.",
}
export const KINDS = Object.keys(KIND_MEANINGS) as WebhookEventKind[]

// The service's rules (functions/domain/webhooks.ts WEBHOOK_LIMITS), said to the person.
const OVERLAP_HOURS = 24
const FAILING_DAYS = 5
const KEEP_DAYS = 30
const DESCRIPTION_MAX = 200

/** How often the delivery log is read again while a message waits for an attempt. */
export const WEBHOOKS_POLL_MS = 3_000
/** After a test, a replay: the log is watched this long for the new attempt to show. */
const WATCH_AFTER_ACTION_MS = 60_000
const WATCH_POLL_MS = 1_500

/** Why an endpoint receives nothing, in words. */
export const disabledText = (endpoint: WebhookEndpoint) =>
  endpoint.disabledReason === 'gone'
    ? 'the receiver answered 410 Gone'
    : endpoint.disabledReason === 'failing'
      ? `every attempt failed for ${FAILING_DAYS} days`
      : 'a person disabled it'

const EndpointState = ({
  endpoint,
  failing = true,
}: {
  endpoint: WebhookEndpoint
  /** Say since when it fails (the endpoint's page has a fact of its own for it). */
  failing?: boolean
}) =>
  endpoint.enabled ? (
    <>
      <StatusBadge status="enabled" />
      {failing && endpoint.failingSince ? (
        <div class="hint failure">
          Failing since <Time iso={endpoint.failingSince} />
        </div>
      ) : null}
    </>
  ) : (
    <>
      <StatusBadge status="disabled" />
      <div class="hint">
        Disabled
        {endpoint.disabledAt ? (
          <>
            {' '}
            on <Time iso={endpoint.disabledAt} />
          </>
        ) : null}
        : {disabledText(endpoint)}
      </div>
    </>
  )

const KindList = ({ kinds }: { kinds: readonly string[] }) =>
  kinds.length === KINDS.length ? (
    <span>Every kind ({kinds.length})</span>
  ) : (
    <ul class="plain kinds-short">
      {kinds.map((k) => (
        <li key={k}>
          <code>{k}</code>
        </li>
      ))}
    </ul>
  )

// The service's field rules are the rest of a sentence ("must be https:// for a LIVE endpoint").
const SUBJECTS: Record<string, string> = {
  url: 'The URL',
  description: 'The description',
  kinds: 'The event kinds',
  since: 'The time',
}
const sentence = (field: string, message: string) =>
  /^[a-z]/.test(message) ? `${SUBJECTS[field] ?? field} ${message}.`.replace(/\.\.$/, '.') : message

/** A field the service names (`kinds[3]`) as the form's; anything else is said for the form. */
const explainEndpointError =
  (fields: readonly string[]) =>
  (error: unknown): Explained => {
    if (!(error instanceof ApiError) || error.errors.length === 0)
      return { message: errorText(error) }
    const byField: Errors = {}
    const rest: string[] = []
    for (const e of error.errors) {
      const field = e.field.replace(/\[\d+\]$/, '').replace(/\..*$/, '')
      const said = sentence(field, e.message)
      if (fields.includes(field))
        byField[field] = byField[field] ? `${byField[field]} ${said}` : said
      else rest.push(`${e.field} ${e.message}`)
    }
    return {
      ...(Object.keys(byField).length > 0 ? { fields: byField } : {}),
      ...(rest.length > 0 || Object.keys(byField).length === 0
        ? { message: rest.join('; ') || errorText(error) }
        : {}),
    }
  }

type EndpointFormValues = { url: string; description: string; kinds: WebhookEventKind[] }

/** The event kinds as checkboxes, their meaning with each; its error under them. */
const KindsField = ({
  value,
  onValue,
  error,
}: {
  value: readonly WebhookEventKind[]
  onValue: (kinds: WebhookEventKind[]) => void
  error?: string | undefined
}) => {
  const id = useId()
  const chosen = new Set(value)
  const toggle = (kind: WebhookEventKind, on: boolean) => {
    const next = new Set(chosen)
    if (on) next.add(kind)
    else next.delete(kind)
    onValue(KINDS.filter((k) => next.has(k)))
  }
  return (
    <fieldset
      class={`field kinds${error ? ' has-error' : ''}`}
      aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
    >
      <legend>Event kinds</legend>
      <div class="hint" id={`${id}-hint`}>
        The events this endpoint receives (at least one). A test event is always allowed.
      </div>
      <ul class="checks">
        {KINDS.map((kind) => (
          <li key={kind}>
            <label class="inline">
              <input
                type="checkbox"
                checked={chosen.has(kind)}
                onChange={(e) => toggle(kind, (e.currentTarget as HTMLInputElement).checked)}
              />{' '}
              <code>{kind}</code> <span class="hint">{KIND_MEANINGS[kind]}</span>
            </label>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" onClick={() => onValue([...KINDS])}>
          Select every kind
        </button>
        <button type="button" onClick={() => onValue([])}>
          Select none
        </button>
      </div>
      {error ? (
        <div class="field-error" id={`${id}-error`}>
          {error}
        </div>
      ) : null}
    </fieldset>
  )
}

/** Add or change an endpoint: its URL, a description, its kinds; messages next to each field. */
const EndpointForm = ({
  mode,
  initial,
  submitLabel,
  onSubmit,
  children,
}: {
  mode: WebhookEndpoint['mode']
  initial: EndpointFormValues
  submitLabel: string
  onSubmit: (values: EndpointFormValues) => Promise<unknown>
  children?: ComponentChildren
}) => {
  const [form, setForm] = useState(initial)
  const { busy, errors, error, run } = useAction(
    explainEndpointError(['url', 'description', 'kinds']),
  )
  const submit = (event: Event) => {
    event.preventDefault()
    const values = { ...form, url: form.url.trim(), description: form.description.trim() }
    const problems: Errors = {}
    if (values.url === '') problems.url = 'Enter the address the events are sent to.'
    if ([...values.description].length > DESCRIPTION_MAX)
      problems.description = `At most ${DESCRIPTION_MAX} characters.`
    if (values.kinds.length === 0) problems.kinds = 'Choose at least one event kind.'
    void run(() => onSubmit(values), problems)
  }
  return (
    <form onSubmit={submit} noValidate>
      <TextField
        label="Endpoint URL"
        hint={
          mode === 'LIVE'
            ? 'An https:// address on the public internet (LIVE endpoints must use https).'
            : 'An https:// or http:// address (TEST endpoints may use http).'
        }
        error={errors.url}
        type="text"
        spellcheck={false}
        autocomplete="off"
        value={form.url}
        onValue={(url) => setForm({ ...form, url })}
        required
      />
      <TextField
        label="Description (optional)"
        hint={`What receives these events, for your team. At most ${DESCRIPTION_MAX} characters.`}
        error={errors.description}
        value={form.description}
        onValue={(description) => setForm({ ...form, description })}
      />
      <KindsField
        value={form.kinds}
        onValue={(kinds) => setForm({ ...form, kinds })}
        error={errors.kinds}
      />
      <FormEnd error={error} busy={busy} label={submitLabel}>
        {children}
      </FormEnd>
    </form>
  )
}

type Revealed = { endpoint: WebhookEndpoint; secret: string; rotated: boolean }

/** The signing secret, this once: copy it now, it is never shown again. */
const SecretReveal = ({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) => {
  const { endpoint, secret, rotated } = revealed
  return (
    <section class="panel reveal" aria-labelledby="new-secret">
      <h2 id="new-secret">{rotated ? 'The new signing secret' : 'The signing secret'}</h2>
      <p>
        Of the endpoint <bdi class="url">{endpoint.url}</bdi>.
      </p>
      <p class="warning" role="alert">
        <strong>Copy this secret now: it is shown only once.</strong> The service keeps it sealed
        and never shows it again. If it is lost, rotate it to get a new one.
      </p>
      <Field label="Signing secret">
        {(props) => (
          <input
            {...props}
            class="secret"
            readOnly
            value={secret}
            spellcheck={false}
            autocomplete="off"
            onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          />
        )}
      </Field>
      <CopyButton text={secret} label="Copy secret" />
      {rotated ? (
        <p>
          The old secret keeps signing alongside the new one for {OVERLAP_HOURS} hours
          {endpoint.previousSecretExpiresAt ? (
            <>
              , until <Time iso={endpoint.previousSecretExpiresAt} />
            </>
          ) : null}
          : each delivery carries a signature by each, so the receiver can move to the new secret
          without missing one.
        </p>
      ) : (
        <p>
          The receiver verifies each delivery with it: the <code>webhook-id</code>,{' '}
          <code>webhook-timestamp</code> and <code>webhook-signature</code> headers of the Standard
          Webhooks scheme (any of its libraries does it).
        </p>
      )}
      <div class="actions">
        <button type="button" class="primary" onClick={onDone}>
          I have stored the secret
        </button>
      </div>
    </section>
  )
}

const ALL_KINDS: EndpointFormValues = { url: '', description: '', kinds: [...KINDS] }

/** The endpoints of this issuer and mode; owners and admins add them. */
export const WebhooksPage = () => {
  const scope = useScope()
  const { api, mode, role } = scope
  const admin = can(role, 'admin')
  const [revealed, setRevealed] = useState<Revealed>()
  const [formKey, setFormKey] = useState(0)
  const {
    data,
    error: loadError,
    loading,
    reload,
  } = useLoad(() => api.webhookEndpoints(mode), [api, mode])
  const endpoints = data ?? []

  const create = async (values: EndpointFormValues) => {
    const { secret, ...endpoint } = await api.createWebhookEndpoint({
      mode,
      url: values.url,
      kinds: values.kinds,
      ...(values.description ? { description: values.description } : {}),
    })
    setRevealed({ endpoint, secret, rotated: false })
    setFormKey((k) => k + 1)
    void reload()
  }

  return (
    <>
      <PageTitle title={`${mode} webhooks`}>Webhooks</PageTitle>
      <p class="lede">
        Where {scope.issuerName}'s {mode} events are sent: grants offered, accepted, declined or
        expired, batches completed, pools running low. Each delivery is signed with the endpoint's
        secret (the Standard Webhooks scheme), retried for about 3 days while the receiver fails,
        and kept in the endpoint's delivery log for {KEEP_DAYS} days. {mode} events never reach{' '}
        {mode === 'TEST' ? 'LIVE' : 'TEST'} endpoints.
      </p>
      {revealed ? (
        <>
          <SecretReveal revealed={revealed} onDone={() => setRevealed(undefined)} />
          <p>
            <a href={scope.at(`webhooks/${revealed.endpoint.endpointId}`)}>
              Open the new endpoint: send it a test event and see its delivery log
            </a>
          </p>
        </>
      ) : null}
      <Alert>{loadError}</Alert>
      {endpoints.length > 0 ? (
        <div class="table-box">
          <table>
            <caption>{mode} webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Event kinds</th>
                <th scope="col">State</th>
                <th scope="col">Last success</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((endpoint) => (
                <tr key={endpoint.endpointId}>
                  <th scope="row" class="text">
                    <a href={scope.at(`webhooks/${endpoint.endpointId}`)}>
                      <bdi class="url">{endpoint.url}</bdi>
                    </a>
                    {endpoint.description ? (
                      <div>
                        <bdi>{endpoint.description}</bdi>
                      </div>
                    ) : null}
                    <div class="hint">{endpoint.endpointId}</div>
                  </th>
                  <td class="text">
                    <KindList kinds={endpoint.kinds} />
                  </td>
                  <td class="text">
                    <EndpointState endpoint={endpoint} />
                  </td>
                  <td>
                    {endpoint.lastSuccessAt ? <Time iso={endpoint.lastSuccessAt} /> : 'Never'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {!loading && !loadError && endpoints.length === 0 ? (
        <p>No {mode} webhook endpoints yet.</p>
      ) : null}
      {admin ? (
        <section class="panel" aria-labelledby="add-endpoint">
          <h2 id="add-endpoint">Add a {mode} endpoint</h2>
          <EndpointForm
            key={formKey}
            mode={mode}
            initial={ALL_KINDS}
            submitLabel="Add endpoint"
            onSubmit={create}
          />
        </section>
      ) : (
        <p class="hint">Owners and admins add, change and test endpoints.</p>
      )}
    </>
  )
}

const ERROR_WORDS: Record<string, string> = {
  timeout: 'No answer within 15 s',
  connection: 'Connection failed',
  refused_address: 'Refused: a private or reserved address',
  redirect: 'Answered a redirect (not followed)',
  tls: 'TLS failed',
  dns: 'Host name not found',
  invalid_url: 'Invalid URL',
}
const TRIGGER_WORDS: Record<WebhookAttempt['trigger'], string> = {
  auto: 'Scheduled',
  replay: 'Replay',
  test: 'Test',
}

/** An attempt's outcome: the HTTP status, or why there was none. */
export const attemptResult = (attempt: WebhookAttempt) =>
  attempt.status !== undefined
    ? `HTTP ${attempt.status}`
    : attempt.error
      ? (ERROR_WORDS[attempt.error] ?? attempt.error)
      : 'No answer'

const attemptOk = (attempt: WebhookAttempt) =>
  attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300

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

const Attempts = ({ message, id }: { message: WebhookMessage; id: string }) => (
  <div id={id} class="attempts">
    {message.attempts.length === 0 ? (
      <p>No attempt yet.</p>
    ) : (
      <table>
        <caption>Attempts of message {message.messageId}, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Result</th>
            <th scope="col">Latency</th>
            <th scope="col">Started by</th>
            <th scope="col">Start of the response</th>
          </tr>
        </thead>
        <tbody>
          {message.attempts.map((attempt, i) => (
            <tr key={`${attempt.at}-${i}`}>
              <th scope="row">{i + 1}</th>
              <td>
                <Time iso={attempt.at} seconds />
              </td>
              <td class={attemptOk(attempt) ? 'text ok' : 'text failure'}>
                {attemptResult(attempt)}
              </td>
              <td class="num">{formatNumber(attempt.latencyMs)} ms</td>
              <td class="text">{TRIGGER_WORDS[attempt.trigger] ?? attempt.trigger}</td>
              <td class="text">
                {attempt.response ? (
                  <code class="response">{attempt.response}</code>
                ) : (
                  <span class="hint">None</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </div>
)

const MessageRows = ({
  message,
  admin,
  columns,
  onReplay,
}: {
  message: WebhookMessage
  admin: boolean
  columns: number
  onReplay: (message: WebhookMessage) => Promise<unknown>
}) => {
  const [open, setOpen] = useState(false)
  const id = useId()
  const last = message.attempts[message.attempts.length - 1]
  const count = message.attempts.length
  return (
    <>
      <tr>
        <th scope="row" class="text">
          <code>{message.type}</code>
          <div class="hint">{message.messageId}</div>
        </th>
        <td>
          <StatusBadge status={message.status} />
        </td>
        <td>
          <Time iso={message.createdAt} seconds />
        </td>
        <td class="text">
          {last ? (
            <span class={attemptOk(last) ? 'ok' : 'failure'}>
              {attemptResult(last)}, {formatNumber(last.latencyMs)} ms
            </span>
          ) : (
            'None yet'
          )}
        </td>
        <td>
          {message.status === 'pending' && message.nextAttemptAt ? (
            <Time iso={message.nextAttemptAt} seconds />
          ) : (
            '—'
          )}
        </td>
        <td>
          <span class="row-actions">
            <button
              type="button"
              aria-expanded={open}
              aria-controls={id}
              aria-label={`Attempts (${count}) of message ${message.messageId}`}
              onClick={() => setOpen(!open)}
            >
              Attempts ({count})
            </button>
            {admin ? (
              <ConfirmButton
                label="Replay"
                buttonLabel={`Replay message ${message.messageId}`}
                title={`Replay message ${message.messageId}?`}
                confirmLabel="Replay message"
                onConfirm={() => onReplay(message)}
              >
                <p>
                  The same message (its <code>webhook-id</code> and body) is sent once more now,
                  signed afresh, whatever its status.
                </p>
              </ConfirmButton>
            ) : null}
          </span>
        </td>
      </tr>
      {open ? (
        <tr class="expanded">
          <td colSpan={columns}>
            <Attempts message={message} id={id} />
          </td>
        </tr>
      ) : null}
    </>
  )
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
      <Field
        label="Replay every message since"
        hint={`Your time zone. Messages are kept ${KEEP_DAYS} days.`}
        error={errors.since}
      >
        {(props) => (
          <input
            {...props}
            type="datetime-local"
            value={since}
            onInput={(e) => setSince(inputValue(e))}
          />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        Replay every message since then
      </button>
      <Alert>{error}</Alert>
    </form>
  )
}

type Watch = { until: number; messageId?: string }

/**
 * The delivery log: newest first, a page at a time ("Load more"); read again every few seconds
 * while a message is pending (or for a while after a test or a replay, until its message shows
 * delivered or failed), and no longer once none is.
 */
const DeliveryLog = ({
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
        <div class="table-box">
          <table>
            <caption>Messages to this endpoint, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Message</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((message) => (
                <MessageRows
                  key={message.messageId}
                  message={message}
                  admin={admin}
                  columns={columns}
                  onReplay={replay}
                />
              ))}
            </tbody>
          </table>
        </div>
      </PagedList>
    </section>
  )
}

/** One endpoint: its facts, its actions (owners and admins), its delivery log. */
export const WebhookEndpointPage = ({ endpointId }: { endpointId: string }) => {
  const scope = useScope()
  const { api, role } = scope
  const { route } = useLocation()
  const admin = can(role, 'admin')
  const [message, setMessage] = useState('')
  const [revealed, setRevealed] = useState<Revealed>()
  const [editing, setEditing] = useState(false)
  const [deleted, setDeleted] = useState(false)
  const [watch, setWatch] = useState<Watch>()
  const [version, setVersion] = useState(0)
  const [fresh, setFresh] = useState<WebhookEndpoint>()
  const action = useAction()
  const { data, error: loadError } = useLoad(async () => {
    const found = await api.webhookEndpoint(endpointId)
    // An endpoint's address in the other mode: its own mode's.
    if (found.mode !== scope.mode) route(scope.at(`webhooks/${found.endpointId}`, found.mode), true)
    return found
  }, [api, endpointId, version])
  // What the last action answered, until the endpoint is read again.
  const endpoint = fresh ?? data
  const reloadEndpoint = () => {
    setFresh(undefined)
    setVersion((v) => v + 1)
  }
  // The sender records an attempt, then the endpoint's outcome (last success, failing since): read
  // the endpoint when the log moves, and once more a moment later for the outcome.
  const later = useRef<number | undefined>(undefined)
  useEffect(() => () => window.clearTimeout(later.current), [])
  const logMoved = () => {
    reloadEndpoint()
    window.clearTimeout(later.current)
    later.current = window.setTimeout(reloadEndpoint, 2_000)
  }

  const act = (work: () => Promise<unknown>) => {
    setMessage('')
    void action.run(work)
  }
  const changed = (answer: WebhookEndpoint, text: string) => {
    setFresh(answer)
    setMessage(text)
  }

  if (deleted) {
    return (
      <>
        <PageTitle title="Endpoint deleted">Endpoint deleted</PageTitle>
        <Status>
          The endpoint {endpoint?.url ?? endpointId} is deleted: no more events are sent to it.
        </Status>
        <p>
          <a href={scope.at('webhooks')}>Back to the webhooks</a>
        </p>
      </>
    )
  }
  if (loadError && !endpoint) {
    return (
      <NotFound
        title="Endpoint not found"
        error={loadError}
        back={scope.at('webhooks')}
        backText="Back to the webhooks"
      />
    )
  }
  if (!endpoint) return <p role="status">Loading the endpoint…</p>

  return (
    <>
      <p class="crumbs">
        <a href={scope.at('webhooks')}>Webhooks</a> ›
      </p>
      <PageTitle title={`Webhook endpoint ${endpoint.url}`}>
        Endpoint <bdi class="url">{endpoint.url}</bdi>
      </PageTitle>
      {endpoint.description ? (
        <p class="description">
          <bdi>{endpoint.description}</bdi>
        </p>
      ) : null}
      {message ? <Status>{message}</Status> : null}
      {revealed ? <SecretReveal revealed={revealed} onDone={() => setRevealed(undefined)} /> : null}
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd>
            <EndpointState endpoint={endpoint} failing={false} />
          </dd>
        </div>
        <div>
          <dt>Last success</dt>
          <dd>
            {endpoint.lastSuccessAt ? <Time iso={endpoint.lastSuccessAt} seconds /> : 'Never'}
          </dd>
        </div>
        <div>
          <dt>Failing since</dt>
          <dd class={endpoint.failingSince ? 'failure' : undefined}>
            {endpoint.failingSince ? <Time iso={endpoint.failingSince} seconds /> : '—'}
          </dd>
        </div>
        <div>
          <dt>Event kinds</dt>
          <dd>
            <KindList kinds={endpoint.kinds} />
          </dd>
        </div>
        <div>
          <dt>Signing secret</dt>
          <dd>
            {endpoint.secretRotatedAt ? (
              <>
                Rotated <Time iso={endpoint.secretRotatedAt} />
              </>
            ) : (
              <>
                Made <Time iso={endpoint.createdAt} />
              </>
            )}
            {endpoint.previousSecretExpiresAt &&
            Date.parse(endpoint.previousSecretExpiresAt) > Date.now() ? (
              <div class="hint">
                The old one signs too until <Time iso={endpoint.previousSecretExpiresAt} />
              </div>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Endpoint id</dt>
          <dd>
            <code>{endpoint.endpointId}</code>
          </dd>
        </div>
      </dl>
      {admin && !editing ? (
        <div class="actions endpoint-actions">
          <button
            type="button"
            class="primary"
            disabled={action.busy || !endpoint.enabled}
            onClick={() =>
              act(async () => {
                const answer = await api.sendTestWebhook(endpoint.endpointId)
                setWatch({ until: Date.now() + WATCH_AFTER_ACTION_MS, messageId: answer.messageId })
                setMessage(
                  `A test event is on its way (message ${answer.messageId}): its attempts show in the delivery log below.`,
                )
              })
            }
          >
            Send test event
          </button>
          <button
            type="button"
            onClick={() => {
              action.setError('')
              setEditing(true)
            }}
          >
            Change
          </button>
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              act(async () => {
                const answer = await api.changeWebhookEndpoint(endpoint.endpointId, {
                  enabled: !endpoint.enabled,
                })
                changed(
                  answer,
                  answer.enabled
                    ? 'The endpoint is enabled: new events are sent to it again.'
                    : 'The endpoint is disabled: no events are sent to it until it is enabled again.',
                )
              })
            }
          >
            {endpoint.enabled ? 'Disable' : 'Enable'}
          </button>
          <ConfirmButton
            label="Rotate secret"
            title="Rotate the signing secret?"
            confirmLabel="Rotate secret"
            onAsk={() => action.setError('')}
            onConfirm={async () => {
              setMessage('')
              const { secret, ...answer } = await api.rotateWebhookSecret(endpoint.endpointId)
              setFresh(answer)
              setRevealed({ endpoint: answer, secret, rotated: true })
            }}
          >
            <p>
              A new secret is made now and shown once. The old secret keeps signing alongside it for{' '}
              {OVERLAP_HOURS} hours (each delivery carries both signatures), so the receiver can
              move to the new one without missing a delivery.
            </p>
          </ConfirmButton>
          <ConfirmButton
            label="Delete"
            buttonClass="danger-outline"
            title={`Delete the endpoint ${endpoint.url}?`}
            confirmLabel="Delete endpoint"
            danger
            onAsk={() => action.setError('')}
            onConfirm={async () => {
              setMessage('')
              await api.deleteWebhookEndpoint(endpoint.endpointId)
              setDeleted(true)
            }}
          >
            <p>
              No more events are sent to it, and messages waiting for a retry are dropped. Its
              delivery log goes with it. This cannot be undone: to pause deliveries, disable it
              instead.
            </p>
          </ConfirmButton>
        </div>
      ) : null}
      {!endpoint.enabled && admin ? (
        <p class="hint">Enable the endpoint to send it a test event.</p>
      ) : null}
      <Alert>{!editing && action.error}</Alert>
      {admin && editing ? (
        <section class="panel" aria-labelledby="change-endpoint">
          <h2 id="change-endpoint">Change the endpoint</h2>
          <EndpointForm
            mode={endpoint.mode}
            initial={{
              url: endpoint.url,
              description: endpoint.description ?? '',
              kinds: KINDS.filter((k) => endpoint.kinds.includes(k)),
            }}
            submitLabel="Save endpoint"
            onSubmit={async (values) => {
              const body: WebhookEndpointBody = {}
              if (values.url !== endpoint.url) body.url = values.url
              if (values.description !== (endpoint.description ?? ''))
                body.description = values.description
              if (values.kinds.join() !== endpoint.kinds.join()) body.kinds = values.kinds
              const answer =
                Object.keys(body).length === 0
                  ? endpoint
                  : await api.changeWebhookEndpoint(endpoint.endpointId, body)
              setEditing(false)
              changed(answer, 'The endpoint is saved.')
            }}
          >
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </EndpointForm>
        </section>
      ) : null}
      <DeliveryLog
        endpointId={endpoint.endpointId}
        admin={admin}
        watch={watch}
        onWatch={(w, text) => {
          setWatch(w)
          setMessage(text)
        }}
        onMoved={logMoved}
      />
    </>
  )
}
