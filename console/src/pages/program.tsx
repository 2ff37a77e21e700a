import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { isProgramOpen } from '../../../functions/domain/program'
import {
  type Grant,
  type IssuerApi,
  newIdempotencyKey,
  type Program,
  type RenderedMail,
} from '../api'
import { CsvDownloadButton, downloadCsvPages } from '../csv-download'
import { checkGrant, GRANT_RULES, type GrantForm } from '../grant-rules'
import { MailFrame } from '../mail-frame'
import { useScope } from '../scope'
import {
  Alert,
  CopyButton,
  can,
  DataTable,
  Facts,
  Pager,
  PageTitle,
  PoolGauge,
  Status,
  StatusBadge,
  useLoad,
  usePageData,
  usePager,
} from '../ui'
import { digitsOf, formatNumber, Time } from '../ui-format'
import { explainApiError, TextField, useAction } from '../ui-forms'
import { NotFound } from '../ui-pages'
import { OfferSettings } from './offer-settings'
import { ProgramBatches } from './program-batches'
import { ProgramFigures } from './program-figures'
import { ProgramValuePanel } from './program-value'
import { ProgramActions } from './programs'

const API_FIELDS = { 'recipient.email': 'email', 'recipient.name': 'name' }

const grantBodyOf = (form: GrantForm) => ({
  recipient: {
    email: form.email.trim(),
    ...(form.name.trim() === '' ? {} : { name: form.name.trim() }),
  },
  reason: form.reason,
  amount: Number(digitsOf(form.amount)),
})

const SendOne = ({ program, onSent }: { program: Program; onSent: (grant: Grant) => void }) => {
  const { api } = useScope()
  const [form, setForm] = useState({ email: '', name: '', reason: '', amount: '' })
  const [preview, setPreview] = useState<{ key: string; mail: RenderedMail } | undefined>()
  const { busy, errors, error, run } = useAction((e) => {
    const explained = explainApiError(e, API_FIELDS)
    // A field the service refused is changed in the form, so the preview goes.
    if (explained.fields) setPreview(undefined)
    return explained
  })
  const set = (field: keyof typeof form) => (value: string) => {
    setForm({ ...form, [field]: value })
    setPreview(undefined)
  }
  // A field of the form as a TextField's: its rule, its value, its setter, its error.
  const field = (name: keyof GrantForm) => ({
    hint: GRANT_RULES[name],
    value: form[name],
    onValue: set(name),
    error: errors[name],
  })

  const review = (event: Event) => {
    event.preventDefault()
    void run(async () => {
      // The e-mail the recipient will get, rendered by the service's own renderer.
      const mail = await api.offerPreview(program.id, grantBodyOf(form))
      setPreview({ key: newIdempotencyKey('console'), mail })
    }, checkGrant(form))
  }

  const send = () =>
    run(async () => {
      if (!preview) return
      const grant = await api.sendGrant(program.id, grantBodyOf(form), preview.key)
      setForm({ email: '', name: '', reason: '', amount: '' })
      setPreview(undefined)
      onSent(grant)
    })

  const amount = Number(digitsOf(form.amount))
  return (
    <section class="panel" aria-labelledby="send-one">
      <h2 id="send-one">Send one grant</h2>
      <form onSubmit={review} noValidate>
        <div class="form-row">
          <TextField label="Recipient e-mail" type="email" {...field('email')} required />
          <TextField label="Recipient name" {...field('name')} />
        </div>
        <div class="form-row">
          <TextField label="Reason" {...field('reason')} required />
          <TextField label="Amount" inputMode="numeric" {...field('amount')} required />
        </div>
        {!preview ? (
          <div class="actions">
            <button type="submit" disabled={busy}>
              Preview grant and e-mail
            </button>
          </div>
        ) : null}
      </form>
      {preview ? (
        <section class="preview" aria-label="Grant preview">
          <p>
            Grant <strong>{formatNumber(amount)}</strong> share{amount === 1 ? '' : 's'} of{' '}
            <strong>
              <bdi>{program.name}</bdi>
            </strong>{' '}
            ({program.mode}) to <strong>{form.email.trim().toLowerCase()}</strong>
            {form.name.trim() ? ` (${form.name.trim()})` : ''}, for “{form.reason}”.
          </p>
          {program.remaining !== null ? (
            <p class="hint">{formatNumber(program.remaining)} shares are left in the pool.</p>
          ) : null}
          <h3>The e-mail {form.email.trim().toLowerCase()} will get</h3>
          <p class="hint">
            {program.mode === 'TEST'
              ? 'A TEST grant’s e-mail goes to your TEST inbox, never to the recipient.'
              : 'Sent once the grant is made; its link opens the recipient’s offer page.'}{' '}
            Subject: <strong>{preview.mail.subject}</strong>
          </p>
          <MailFrame html={preview.mail.html} title={`Preview: ${preview.mail.subject}`} />
          <Alert>{error}</Alert>
          <div class="actions">
            <button type="button" class="primary" onClick={send} disabled={busy}>
              Send grant
            </button>
            <button type="button" onClick={() => setPreview(undefined)} disabled={busy}>
              Change
            </button>
          </div>
        </section>
      ) : (
        <Alert>{error}</Alert>
      )}
    </section>
  )
}

const sourceText = (grant: Grant) =>
  grant.source === 'api'
    ? `API key ${grant.keyId ?? ''}`
    : grant.source === 'console'
      ? `Sent by ${grant.sentBy?.email ?? ''}`
      : `Batch row ${grant.batch?.row ?? ''}`

/** Every page of the CSV export, in order, as one file. */
const exportCsv = (api: IssuerApi, program: Program, recipient: string) =>
  downloadCsvPages(
    (cursor) => api.grantsCsv(program.id, { recipient, cursor }),
    `grants-${program.id}.csv`,
  )

const Grants = ({ program, version }: { program: Program; version: number }) => {
  const scope = useScope()
  const pager = usePager()
  const [filter, setFilter] = useState('')
  const [recipient, setRecipient] = useState('')
  const { data, error, loading } = useLoad(
    () => scope.api.grants(program.id, { recipient, cursor: pager.cursor, limit: 25 }),
    [scope.api, program.id, recipient, pager.cursor, version],
  )
  const grants = data?.data ?? []

  return (
    <section aria-labelledby="grants">
      <h2 id="grants">Grants</h2>
      <div class="toolbar">
        <form
          class="inline-form"
          aria-label="Filter grants"
          onSubmit={(event) => {
            event.preventDefault()
            pager.reset()
            setRecipient(filter.trim())
          }}
        >
          <TextField
            label="Recipient e-mail filter"
            type="search"
            value={filter}
            onValue={setFilter}
          />
          <button type="submit">Filter</button>
          {recipient ? (
            <button
              type="button"
              onClick={() => {
                setFilter('')
                setRecipient('')
                pager.reset()
              }}
            >
              Clear filter
            </button>
          ) : null}
        </form>
        <CsvDownloadButton
          label="Export CSV"
          download={() => exportCsv(scope.api, program, recipient)}
          done={(rows) =>
            `Exported ${formatNumber(rows)} ${rows === 1 ? 'grant' : 'grants'} as CSV.`
          }
        />
      </div>
      <Alert>{error}</Alert>
      <DataTable
        caption={<>{recipient ? `Grants to ${recipient}` : 'Recent grants'}, newest first</>}
        columns={['Created', 'Recipient', 'Amount', 'Reason', 'Source', 'Status', 'Grant id']}
      >
        {grants.map((grant) => (
          <tr key={grant.id}>
            <td>
              <Time iso={grant.createdAt} />
            </td>
            <td class="text">
              {grant.recipient.email}
              {grant.recipient.name ? (
                <div class="hint">
                  <bdi>{grant.recipient.name}</bdi>
                </div>
              ) : null}
            </td>
            <td class="num">{formatNumber(grant.amount)}</td>
            <td class="text">
              <bdi>{grant.reason}</bdi>
            </td>
            <td class="text">{sourceText(grant)}</td>
            <td>{grant.status}</td>
            <td>
              <a href={scope.at(`grants/${grant.id}`)}>
                <code>{grant.id}</code>
              </a>
            </td>
          </tr>
        ))}
      </DataTable>
      {loading && !data ? <p role="status">Loading grants…</p> : null}
      {!loading && grants.length === 0 ? (
        <p>{recipient ? `No grants to ${recipient} on this page.` : 'No grants yet.'}</p>
      ) : null}
      <Pager label="Grant pages" pager={pager} nextCursor={data?.nextCursor} />
    </section>
  )
}

export const ProgramPage = ({ programId }: { programId: string }) => {
  const scope = useScope()
  const { route } = useLocation()
  const [version, setVersion] = useState(0)
  const {
    data: program,
    error,
    message,
    setMessage,
    done,
  } = usePageData(async () => {
    const found = await scope.api.program(programId)
    // A program's address in the other mode: its own mode's.
    if (found.mode !== scope.mode) route(scope.at(`programs/${found.id}`, found.mode), true)
    return found
  }, [scope.api, programId, version])

  if (error) {
    return <NotFound title="Program not found" error={error} />
  }
  if (!program) return <p role="status">Loading the program…</p>
  return (
    <>
      <p class="crumbs">
        <a href={scope.at('programs')}>Programs</a> ›
      </p>
      <PageTitle title={program.name}>{program.name}</PageTitle>
      {message ? <Status>{message}</Status> : null}
      <Facts
        facts={[
          ['Mode', <span class={`badge badge-${program.mode.toLowerCase()}`}>{program.mode}</span>],
          ['Status', <StatusBadge status={program.status} />],
          [
            'Pool',
            <PoolGauge
              name={program.name}
              pool={program.pool}
              issued={program.issued}
              remaining={program.remaining}
            />,
          ],
          [
            'Program id',
            <>
              <code>{program.id}</code> <CopyButton text={program.id} label="Copy program id" />
            </>,
          ],
          ['Created', <Time iso={program.createdAt} />],
        ]}
      />
      <ProgramActions program={program} onChanged={(_, text) => done(text)} />
      <OfferSettings program={program} onSaved={(_, text) => done(text)} />
      <ProgramValuePanel program={program} onSaved={done} />
      {can(scope.role, 'admin') && isProgramOpen(program) ? (
        <>
          <SendOne
            program={program}
            onSent={(grant) => {
              setMessage(
                `Granted ${formatNumber(grant.amount)} share${grant.amount === 1 ? '' : 's'} to ${grant.recipient.email} (grant ${grant.id}).`,
              )
              setVersion((v) => v + 1)
            }}
          />
          <section class="panel" aria-labelledby="send-many">
            <h2 id="send-many">Send to many</h2>
            <p>
              Upload a CSV file of recipients, check every row before anything is sent, then send
              them all at once.
            </p>
            <p>
              <a class="button" href={scope.at(`programs/${program.id}/send-many`)}>
                Send to many from a CSV file
              </a>
            </p>
          </section>
        </>
      ) : !isProgramOpen(program) ? (
        <p class="hint">This program is {program.status}: it accepts no grants.</p>
      ) : null}
      <ProgramBatches program={program} />
      <ProgramFigures program={program} />
      <Grants program={program} version={version} />
    </>
  )
}
