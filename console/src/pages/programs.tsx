import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { isProgramOpen, MAX_NAME_LENGTH, MAX_POOL } from '../../../functions/domain/program'
import type { Mode, Program, ProgramAction } from '../api'
import { useScope } from '../scope'
import {
  ActOn,
  Alert,
  ConfirmDialog,
  can,
  DataTable,
  PageTitle,
  PoolGauge,
  Status,
  StatusBadge,
  usePageData,
} from '../ui'
import { digitsOf, formatNumber, Time } from '../ui-format'
import { FormPanel, RadioChoices, TextField, useAction, useFields } from '../ui-forms'

const MODES = [
  ['TEST', 'TEST'],
  ['LIVE', 'LIVE'],
] as const

/** Pause, resume and close a program: what its status allows, for admins and owners only. */
export const ProgramActions = ({
  program,
  onChanged,
}: {
  program: Program
  onChanged: (program: Program, message: string) => void
}) => {
  const { api, role } = useScope()
  const { busy, error, run, setError } = useAction()
  const [confirmClose, setConfirmClose] = useState(false)
  if (!can(role, 'admin') || program.status === 'closed') return null

  const change = (action: ProgramAction) =>
    run(async () => {
      const updated = await api.changeProgram(program.id, action)
      setConfirmClose(false)
      onChanged(
        updated,
        action === 'pause'
          ? `${updated.name} is paused: new grants are refused within 1 second, until you resume it.`
          : action === 'resume'
            ? `${updated.name} is active again: it accepts grants within 1 second.`
            : `${updated.name} is closed for good: new grants are refused within 1 second.`,
      )
    })

  return (
    <span class="row-actions">
      {isProgramOpen(program) ? (
        <ActOn label="Pause" of={program.name} onClick={() => change('pause')} disabled={busy} />
      ) : (
        <ActOn label="Resume" of={program.name} onClick={() => change('resume')} disabled={busy} />
      )}
      <ActOn
        label="Close"
        of={program.name}
        danger
        onClick={() => {
          setError('')
          setConfirmClose(true)
        }}
        disabled={busy}
      />
      <Alert>{!confirmClose && error}</Alert>
      <ConfirmDialog
        open={confirmClose}
        title={`Close ${program.name}?`}
        confirmLabel="Close program"
        danger
        busy={busy}
        error={confirmClose && error}
        onConfirm={() => change('close')}
        onClose={() => setConfirmClose(false)}
      >
        <p>
          <strong>Closing is final.</strong> A closed program never accepts grants again and cannot
          be reopened; new grants are refused within 1 second. The grants it has made stay as they
          are.
        </p>
        <p>To stop grants for a while instead, pause it: a paused program can be resumed.</p>
      </ConfirmDialog>
    </span>
  )
}

const CreateProgram = ({ onCreated }: { onCreated: (program: Program) => void }) => {
  const { api, mode: currentMode } = useScope()
  const [mode, setMode] = useState<Mode>(currentMode)
  const action = useAction()
  const { errors, run } = action
  const { values, reset, bind } = useFields({ name: '', pool: '' }, errors)

  const submit = (event: Event) => {
    event.preventDefault()
    const problems: Record<string, string> = {}
    const trimmed = values.name.trim()
    if (trimmed === '') problems.name = 'Give the program a name.'
    else if ([...trimmed].length > MAX_NAME_LENGTH)
      problems.name = `At most ${MAX_NAME_LENGTH} characters.`
    const poolText = digitsOf(values.pool)
    if (
      poolText !== '' &&
      (!/^\d+$/.test(poolText) || Number(poolText) < 1 || Number(poolText) > MAX_POOL)
    ) {
      problems.pool = `A whole number from 1 to ${formatNumber(MAX_POOL)}, or empty for no limit.`
    }
    void run(async () => {
      const program = await api.createProgram({
        name: trimmed,
        mode,
        ...(poolText === '' ? {} : { pool: Number(poolText) }),
      })
      reset()
      onCreated(program)
    }, problems)
  }

  return (
    <FormPanel title="Create a program" label="Create program" action={action} onSubmit={submit}>
      <div class="form-row">
        <TextField
          label="Name"
          hint={`1 to ${MAX_NAME_LENGTH} characters.`}
          {...bind('name')}
          required
        />
        <fieldset class="field">
          <legend>Mode</legend>
          <RadioChoices
            name="program-mode"
            value={mode}
            onValue={setMode}
            options={MODES}
            labelClass="inline"
          />
          <div class="hint">A program's mode never changes.</div>
          {errors.mode ? <div class="field-error">{errors.mode}</div> : null}
        </fieldset>
        <TextField
          label="Pool (optional)"
          hint="The most shares it may ever grant. Empty: no limit."
          inputMode="numeric"
          {...bind('pool')}
        />
      </div>
    </FormPanel>
  )
}

export const ProgramsPage = () => {
  const scope = useScope()
  const { api, mode, role } = scope
  const { route } = useLocation()
  const { data, error, loading, reload, message, setMessage, done } = usePageData(
    () => api.programs(mode),
    [api, mode],
  )
  const programs = data ?? []
  return (
    <>
      <PageTitle title={`${mode} programs`}>Programs</PageTitle>
      <p class="lede">
        The {mode} programs of {scope.issuerName}.{' '}
        {mode === 'TEST'
          ? 'TEST programs take TEST keys: build and try your integration here.'
          : 'LIVE programs take LIVE keys and grant real shares.'}
      </p>
      {message ? <Status>{message}</Status> : null}
      <Alert>{error}</Alert>
      <DataTable
        caption={<>{mode} programs</>}
        columns={['Name', 'Status', 'Pool', 'Created', can(role, 'admin') && 'Actions']}
      >
        {programs.map((program) => (
          <tr key={program.id}>
            <th scope="row" class="text">
              <a href={scope.at(`programs/${program.id}`)}>
                <bdi>{program.name}</bdi>
              </a>
            </th>
            <td>
              <StatusBadge status={program.status} />
            </td>
            <td>
              <PoolGauge
                name={program.name}
                pool={program.pool}
                issued={program.issued}
                remaining={program.remaining}
              />
            </td>
            <td>
              <Time iso={program.createdAt} />
            </td>
            {can(role, 'admin') ? (
              <td>
                <ProgramActions program={program} onChanged={(_, text) => done(text)} />
              </td>
            ) : null}
          </tr>
        ))}
      </DataTable>
      {!loading && programs.length === 0 && !error ? (
        <p>
          No {mode} programs yet.
          {can(role, 'admin') ? ' Create one below.' : ''}
        </p>
      ) : null}
      {loading && !data ? <p role="status">Loading programs…</p> : null}
      {programs.length > 0 ? (
        <p class="hint">
          {formatNumber(programs.reduce((sum, p) => sum + p.issued, 0))} shares issued in all {mode}{' '}
          programs.
        </p>
      ) : null}
      {can(role, 'admin') ? (
        <CreateProgram
          onCreated={(program) => {
            setMessage(
              `Program ${program.name} created (${program.mode}${program.pool === null ? ', no pool limit' : `, pool ${formatNumber(program.pool)}`}).`,
            )
            if (program.mode !== mode) route(scope.at('programs', program.mode))
            else void reload()
          }}
        />
      ) : null}
    </>
  )
}
