import { useState } from 'preact/hooks'
import { isProgramOpen } from '../../../functions/domain/program'
import type { ApiKey } from '../api'
import { config } from '../config'
import { useScope } from '../scope'
import {
  ActOn,
  Alert,
  ConfirmDialog,
  CopyButton,
  can,
  DataTable,
  PageTitle,
  Status,
  StatusBadge,
  useLoad,
} from '../ui'
import { formatTime, Time } from '../ui-format'
import { SelectField, TextField, useAction } from '../ui-forms'
import { ShownOnce } from '../ui-pages'
import { KeyLimit, KeyLimitDialog } from './key-limit'

/**
 * API keys of one mode: create (the secret shown once), list masked with their rate limits, roll
 * with a grace period, revoke, lower the limit (key-limit.tsx). The service checks a key's validity through a cache bounded at 1 second, so a revoked
 * key stops working within 1 second.
 */

const masked = (key: ApiKey) => `${key.prefix}…${key.last4}`

type Revealed = { key: ApiKey; secret: string; old?: ApiKey }

const KeyReveal = ({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) => (
  <ShownOnce
    id="new-key"
    title={`${revealed.old ? 'Your rolled' : 'Your new'} ${revealed.key.mode} key`}
    kept="The service keeps only a hash of it, so nobody can show it again. If it is lost, roll the key to get a new one."
    label={`Secret of key ${revealed.key.id}`}
    secret={revealed.secret}
    copyLabel="Copy key"
    doneLabel="I have stored the key"
    onDone={onDone}
  >
    {revealed.old ? (
      <p>
        The old key {masked(revealed.old)}{' '}
        {revealed.old.status === 'active' && revealed.old.expiresAt
          ? `keeps working until ${formatTime(revealed.old.expiresAt)}.`
          : 'no longer works.'}
      </p>
    ) : null}
  </ShownOnce>
)

const EXPIRY = [
  { value: '', label: 'Never' },
  { value: '30d', label: 'In 30 days' },
  { value: '90d', label: 'In 90 days' },
  { value: '365d', label: 'In 1 year' },
]

const GRACE = [
  { value: '0', label: 'Stops now' },
  { value: '1h', label: 'For 1 hour' },
  { value: '24h', label: 'For 24 hours' },
  { value: '7d', label: 'For 7 days' },
]

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`

/** A ready curl for a TEST program; the pasted key lives in this component's state only. */
const TryIt = () => {
  const { api } = useScope()
  const { data } = useLoad(
    () => api.programs('TEST').then((all) => all.filter(isProgramOpen)),
    [api],
  )
  const [programId, setProgramId] = useState('')
  const [key, setKey] = useState('')
  const programs = data ?? []
  const chosen = programId || programs[0]?.id || '<TEST program id>'
  const base = config().grantApiUrl.replace(/\/+$/, '')
  const command = [
    `curl -i -X POST ${shellQuote(`${base}/programs/${chosen}/grant-tokens`)} \\`,
    `  -H ${shellQuote(`x-api-key: ${key.trim() || 'vs_test_...'}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H "Idempotency-Key: $(uuidgen)" \\`,
    `  -d '{"recipient":{"email":"ann@example.com"},"reason":"Trying the API","amount":1}'`,
  ].join('\n')
  return (
    <section class="panel" aria-labelledby="try-it">
      <h2 id="try-it">Try it</h2>
      <p>
        A ready command for one grant on a TEST program. Paste a TEST key to fill it in: the key
        stays in this page, is never stored or sent anywhere, and is gone when you leave.
      </p>
      <div class="form-row">
        <SelectField
          label="TEST program"
          value={chosen}
          onValue={setProgramId}
          options={
            programs.length === 0
              ? [{ value: '', label: 'No active TEST program' }]
              : programs.map((p) => ({ value: p.id, label: `${p.name} (${p.id})` }))
          }
        />
        <TextField
          label="TEST key to try"
          hint="Never stored."
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={key}
          onValue={setKey}
        />
      </div>
      {key.trim() !== '' && !key.trim().startsWith('vs_test_') ? (
        <Alert>
          This is not a TEST key (they start with vs_test_): a LIVE key on a TEST program is refused
          with 403 mode_mismatch.
        </Alert>
      ) : null}
      <figure>
        <figcaption>Command</figcaption>
        <pre class="command">
          <code>{command}</code>
        </pre>
      </figure>
      <CopyButton text={command} label="Copy command" />
    </section>
  )
}

/** The keys of this mode, masked, newest first; owners and admins roll and revoke active ones. */
const KeysTable = ({
  mode,
  keys,
  admin,
  onAct,
}: {
  mode: string
  keys: ApiKey[]
  admin: boolean
  onAct: (kind: 'roll' | 'revoke' | 'limit', key: ApiKey) => void
}) => (
  <DataTable
    caption={<>{mode} keys, newest first</>}
    columns={[
      'Key',
      'Status',
      'Created by',
      'Created',
      'Expires',
      'Rate limit',
      'Last used',
      admin && 'Actions',
    ]}
  >
    {keys.map((key) => (
      <tr key={key.id}>
        <th scope="row">
          <code>{masked(key)}</code>
          <div class="hint">{key.id}</div>
        </th>
        <td>
          <StatusBadge status={key.status} />
        </td>
        <td class="text">{key.createdBy ?? '—'}</td>
        <td>
          <Time iso={key.createdAt} />
        </td>
        <td>{key.expiresAt ? <Time iso={key.expiresAt} /> : 'Never'}</td>
        <td>
          <KeyLimit apiKey={key} />
        </td>
        <td>
          <span class="hint">Not recorded</span>
        </td>
        {admin ? (
          <td>
            {key.status === 'active' ? (
              <span class="row-actions">
                <ActOn label="Roll" of={`key ${masked(key)}`} onClick={() => onAct('roll', key)} />
                <ActOn
                  label="Change limit"
                  of={`key ${masked(key)}`}
                  onClick={() => onAct('limit', key)}
                />
                <ActOn
                  label="Revoke"
                  of={`key ${masked(key)}`}
                  danger
                  onClick={() => onAct('revoke', key)}
                />
              </span>
            ) : null}
          </td>
        ) : null}
      </tr>
    ))}
  </DataTable>
)

export const KeysPage = () => {
  const scope = useScope()
  const { api, mode, role } = scope
  const admin = can(role, 'admin')
  const [expiresIn, setExpiresIn] = useState('')
  const [revealed, setRevealed] = useState<Revealed>()
  const [message, setMessage] = useState('')
  const { busy, error, run, setError } = useAction()
  const [dialog, setDialog] = useState<{ kind: 'roll' | 'revoke' | 'limit'; key: ApiKey }>()
  const [grace, setGrace] = useState('24h')
  const {
    data,
    error: loadError,
    loading,
    reload,
  } = useLoad(() => api.keys(mode).then((keys) => [...keys].reverse()), [api, mode])
  const keys = data ?? []

  const create = (event: Event) => {
    event.preventDefault()
    setMessage('')
    void run(async () => {
      const { secret, ...key } = await api.createKey({ mode, ...(expiresIn ? { expiresIn } : {}) })
      setRevealed({ key, secret })
      void reload()
    })
  }

  const confirm = () =>
    run(async () => {
      if (!dialog) return
      if (dialog.kind === 'revoke') {
        const key = await api.revokeKey(dialog.key.id)
        setMessage(`Key ${masked(key)} is revoked: it stops working within 1 second.`)
      } else {
        const { secret, old, ...key } = await api.rollKey(dialog.key.id, grace)
        setRevealed({ key, secret, old })
      }
      setDialog(undefined)
      void reload()
    })

  return (
    <>
      <PageTitle title={`${mode} API keys`}>API keys</PageTitle>
      <p class="lede">
        {mode} keys of {scope.issuerName}. A {mode} key ({mode === 'TEST' ? 'vs_test_' : 'vs_live_'}
        …) works on {mode} programs only. Integrators send it in the <code>x-api-key</code> header.
      </p>
      {message ? <Status>{message}</Status> : null}
      {revealed ? <KeyReveal revealed={revealed} onDone={() => setRevealed(undefined)} /> : null}
      {admin && !revealed ? (
        <section class="panel" aria-labelledby="create-key">
          <h2 id="create-key">Create a {mode} key</h2>
          <form onSubmit={create} class="inline-form">
            <SelectField
              label="Expires"
              value={expiresIn}
              onValue={setExpiresIn}
              options={EXPIRY}
            />
            <button type="submit" class="primary" disabled={busy}>
              Create {mode} key
            </button>
          </form>
          <Alert>{!dialog && error}</Alert>
        </section>
      ) : null}
      <Alert>{loadError}</Alert>
      <KeysTable
        mode={mode}
        keys={keys}
        admin={admin}
        onAct={(kind, key) => {
          setError('')
          if (kind === 'roll') setGrace('24h')
          setDialog({ kind, key })
        }}
      />
      {!loading && keys.length === 0 ? <p>No {mode} keys yet.</p> : null}
      <p class="hint">
        "Last used" is not recorded: the service does not write on every grant to keep it.
      </p>
      {dialog?.kind === 'limit' ? (
        <KeyLimitDialog
          apiKey={dialog.key}
          masked={masked(dialog.key)}
          onClose={() => setDialog(undefined)}
          onSaved={(key) => {
            setDialog(undefined)
            setMessage(
              `Key ${masked(key)} now allows ${key.rateLimit} requests a second${key.rateLimitIsDefault ? ' (the default)' : ''}; the API applies it within 1.5 seconds.`,
            )
            void reload()
          }}
        />
      ) : null}
      <ConfirmDialog
        open={dialog?.kind === 'revoke'}
        title={`Revoke key ${dialog ? masked(dialog.key) : ''}?`}
        confirmLabel="Revoke key"
        danger
        busy={busy}
        error={dialog ? error : undefined}
        onConfirm={confirm}
        onClose={() => setDialog(undefined)}
      >
        <p>
          Every integration that uses this key is refused (<code>401 invalid_api_key</code>) within
          1 second. A revoked key cannot be restored: to replace a key without downtime, roll it
          instead.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog?.kind === 'roll'}
        title={`Roll key ${dialog ? masked(dialog.key) : ''}?`}
        confirmLabel="Roll key"
        busy={busy}
        error={dialog ? error : undefined}
        onConfirm={confirm}
        onClose={() => setDialog(undefined)}
      >
        <p>
          A new key is made now and its secret shown once. The old key keeps working for the grace
          period, so you can move your integrations to the new one.
        </p>
        <SelectField
          label="The old key keeps working"
          value={grace}
          onValue={setGrace}
          options={GRACE}
        />
      </ConfirmDialog>
      {mode === 'TEST' ? (
        <TryIt />
      ) : (
        <p class="hint">Switch to Test mode to try the API with a TEST key.</p>
      )}
    </>
  )
}
