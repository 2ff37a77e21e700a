import type { ComponentChildren } from 'preact'
import { useMemo, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import type { Mode } from '../api'
import {
  REQUEST_ID,
  type RequestEntry,
  type RequestFilters,
  requestLogApi,
} from '../request-log-api'
import { useScope } from '../scope'
import { DataTable, Facts, PageTitle, useLoad } from '../ui'
import { formatNumber, Time } from '../ui-format'
import { type Errors, SelectField, TextField, useFields } from '../ui-forms'
import { NotFound, PagedList, usePagedList } from '../ui-pages'

/**
 * The issuer's request log (issue 33): what the integrator API answered its keys in the last 30
 * days, newest first, filtered by mode, key, status, problem code and time; a search by request
 * id (an answer's `Request-Id`, a problem's `requestId`); and each request's page. An entry holds
 * no key, body or address, so none can be shown.
 */

const PAGE_SIZE = 25
const CODE = /^[a-z][a-z0-9_]{0,63}$/

const newestFirst = (fresh: RequestEntry[], shown: RequestEntry[]) => {
  const byId = new Map(shown.map((r) => [r.id, r]))
  for (const entry of fresh) byId.set(entry.id, entry)
  return [...byId.values()].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
}

type FilterFields = {
  mode: string
  keyId: string
  status: string
  code: string
  since: string
  until: string
}

/** A `datetime-local` value (the person's own time) as an instant, or undefined. */
const instantOf = (local: string) => {
  if (local === '') return undefined
  const ms = new Date(local).getTime()
  return Number.isNaN(ms) ? Number.NaN : ms
}

/** The filters the form holds, or what is wrong with them by field (nothing is asked then). */
const filtersOf = (fields: FilterFields): { filters: RequestFilters; problems: Errors } => {
  const problems: Errors = {}
  const filters: RequestFilters = {}
  if (fields.mode === 'TEST' || fields.mode === 'LIVE') filters.mode = fields.mode
  if (fields.keyId) filters.keyId = fields.keyId
  const status = fields.status.trim()
  if (status !== '') {
    if (/^[1-5]\d\d$/.test(status)) filters.status = status
    else problems.status = 'Enter an HTTP status from 100 to 599, such as 429'
  }
  const code = fields.code.trim()
  if (code !== '') {
    if (CODE.test(code)) filters.code = code
    else problems.code = 'Enter a problem code, such as rate_limited'
  }
  const since = instantOf(fields.since)
  const until = instantOf(fields.until)
  if (Number.isNaN(since)) problems.since = 'Enter a date and time'
  else if (since !== undefined) filters.since = new Date(since).toISOString()
  if (Number.isNaN(until)) problems.until = 'Enter a date and time'
  else if (until !== undefined) filters.until = new Date(until + 59_999).toISOString()
  if (since !== undefined && until !== undefined && until < since)
    problems.until = 'Until must not be before since'
  return { filters, problems }
}

const MODE_OPTIONS = [
  { value: '', label: 'Test and Live' },
  { value: 'TEST', label: 'Test' },
  { value: 'LIVE', label: 'Live' },
]

const modeText = (mode: Mode) => (mode === 'TEST' ? 'Test' : 'Live')

/** The issuer's keys of both modes, for the key filter (ids only: a key's secret is never shown). */
const useKeys = () => {
  const { api } = useScope()
  const { data } = useLoad(
    () => Promise.all([api.keys('TEST'), api.keys('LIVE')]).then(([t, l]) => [...t, ...l]),
    [api],
  )
  return data ?? []
}

/** A form of one row, named for screen readers; the page checks its fields itself. */
const InlineForm = (props: {
  label: string
  onSubmit: () => void
  children: ComponentChildren
}) => (
  <form
    class="inline-form"
    aria-label={props.label}
    noValidate
    onSubmit={(event) => {
      event.preventDefault()
      props.onSubmit()
    }}
  >
    {props.children}
  </form>
)

/** Find one request by its id: a malformed id is answered next to the field, nothing is asked. */
const FindRequest = () => {
  const scope = useScope()
  const { route } = useLocation()
  const [id, setId] = useState('')
  const [error, setError] = useState<string | undefined>()
  return (
    <InlineForm
      label="Find a request"
      onSubmit={() => {
        const wanted = id.trim()
        if (!REQUEST_ID.test(wanted)) {
          setError('A request id is req_ and 26 letters or digits, as in a Request-Id header')
          return
        }
        setError(undefined)
        route(scope.at(`logs/${wanted}`))
      }}
    >
      <TextField
        label="Request id"
        type="search"
        spellcheck={false}
        hint="From an answer's Request-Id header or a problem's requestId."
        value={id}
        onValue={setId}
        error={error}
      />
      <button type="submit">Find request</button>
    </InlineForm>
  )
}

export const LogsPage = () => {
  const scope = useScope()
  const logs = useMemo(() => requestLogApi(scope.issuerId), [scope.issuerId])
  const keys = useKeys()
  const [errors, setErrors] = useState<Errors>({})
  const form = useFields<FilterFields>(
    { mode: scope.mode, keyId: '', status: '', code: '', since: '', until: '' },
    errors,
  )
  const [applied, setApplied] = useState<RequestFilters>({ mode: scope.mode })
  const list = usePagedList({
    load: (page) =>
      logs.list(applied, page).then((answer) => ({ items: answer.data, next: answer.nextCursor })),
    merge: newestFirst,
    deps: [logs, JSON.stringify(applied)],
    pageSize: PAGE_SIZE,
  })
  const modeKeys = keys.filter((k) => !form.values.mode || k.mode === form.values.mode)
  const keyOptions = [
    { value: '', label: 'All keys' },
    ...modeKeys.map((k) => ({ value: k.id, label: `${modeText(k.mode)} …${k.last4} (${k.id})` })),
  ]
  const choice = (name: 'mode' | 'keyId') => ({
    value: form.values[name],
    onValue: form.bind(name).onValue,
  })
  return (
    <>
      <PageTitle title="Logs">Logs</PageTitle>
      <p class="lede">
        Every request your API keys made to the grant API in the last 30 days, newest first: when,
        which key, the route, the answer’s status and problem code, and how long it took. Never a
        key, a request body or a recipient’s address.
      </p>
      <FindRequest />
      <InlineForm
        label="Filter requests"
        onSubmit={() => {
          const { filters, problems } = filtersOf(form.values)
          setErrors(problems)
          if (Object.keys(problems).length === 0) setApplied(filters)
        }}
      >
        <SelectField label="Mode" {...choice('mode')} options={MODE_OPTIONS} />
        <SelectField label="API key" {...choice('keyId')} options={keyOptions} />
        <TextField label="Status" inputMode="numeric" {...form.bind('status')} />
        <TextField label="Problem code" spellcheck={false} {...form.bind('code')} />
        <TextField label="Since" type="datetime-local" {...form.bind('since')} />
        <TextField label="Until" type="datetime-local" {...form.bind('until')} />
        <button type="submit">Filter</button>
      </InlineForm>
      <PagedList
        list={list}
        loadingText="Loading requests…"
        emptyText="No requests match these filters in the last 30 days."
        moreLabel="Show more requests"
      >
        <DataTable
          caption="Requests, newest first"
          columns={['Request', 'Mode', 'Key', 'Route', 'Status', 'Code', 'Latency']}
        >
          {list.items.map((entry) => (
            <tr key={entry.id}>
              <th scope="row">
                <a href={scope.at(`logs/${entry.id}`)}>
                  <Time iso={entry.at} seconds />
                </a>
                <div class="hint">
                  <code>{entry.id}</code>
                </div>
              </th>
              <td>{modeText(entry.mode)}</td>
              <td>
                <code>{entry.keyId}</code>
              </td>
              <td class="text">
                <code>{entry.route}</code>
              </td>
              <td>{entry.status}</td>
              <td>{entry.code ? <code>{entry.code}</code> : null}</td>
              <td>{formatNumber(entry.latencyMs)} ms</td>
            </tr>
          ))}
        </DataTable>
      </PagedList>
    </>
  )
}

/** One request: every field of its entry. */
export const RequestPage = ({ requestId }: { requestId: string }) => {
  const scope = useScope()
  const logs = useMemo(() => requestLogApi(scope.issuerId), [scope.issuerId])
  const { data: entry, error } = useLoad(() => logs.get(requestId), [logs, requestId])
  const back = { back: scope.at('logs'), backText: 'Back to the logs' }
  if (error) return <NotFound title="Request not found" error={error} {...back} />
  if (!entry) return <p role="status">Loading the request…</p>
  return (
    <>
      <PageTitle title={`Request ${entry.id}`}>
        {entry.method} {entry.status}
        {entry.code ? ` ${entry.code}` : ''}
      </PageTitle>
      <p>
        <a href={scope.at('logs')}>Back to the logs</a>
      </p>
      <Facts
        facts={[
          ['Request id', <code>{entry.id}</code>],
          ['Time', <Time iso={entry.at} seconds />],
          ['Mode', modeText(entry.mode)],
          ['API key', <code>{entry.keyId}</code>],
          ['Method', entry.method],
          ['Route', <code>{entry.route}</code>],
          ['Status', String(entry.status)],
          ['Problem code', entry.code ? <code>{entry.code}</code> : 'None'],
          ['Latency', `${formatNumber(entry.latencyMs)} ms`],
          [
            'Program',
            entry.programId ? (
              <a href={scope.at(`programs/${entry.programId}`, entry.mode)}>{entry.programId}</a>
            ) : (
              'None'
            ),
          ],
          [
            'Grant',
            entry.grantId ? (
              <a href={scope.at(`grants/${entry.grantId}`, entry.mode)}>{entry.grantId}</a>
            ) : (
              'None'
            ),
          ],
          ['Idempotency-Key', entry.idempotencyKey ? <code>{entry.idempotencyKey}</code> : 'None'],
          ['Replay', entry.replayed ? 'Yes: an earlier grant’s answer, replayed' : 'No'],
        ]}
      />
    </>
  )
}
