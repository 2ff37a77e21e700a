import { useState } from 'preact/hooks'
import { isDecimalAmount } from '../../../functions/domain/share-value'
import type { Program } from '../api'
import {
  listProgramValues,
  type ProgramValue,
  type ProgramValuePage,
  setProgramValue,
} from '../program-value-api'
import { useScope } from '../scope'
import { can, DataTable, Facts, useLoad } from '../ui'
import { Time } from '../ui-format'
import { type Errors, FormPanel, TextField, useAction } from '../ui-forms'

/**
 * The value of a program's share (issue 32): the current value and its history for every member,
 * and the form that sets a new one for owners and admins. The service keeps amounts as decimal
 * strings; the page sends what was typed and shows what the service answers, never a float.
 */

type Form = { amount: string; currency: string; asOf: string; method: string }

/** Today as the person's own calendar says it (the service allows any date already begun on Earth). */
const today = () => {
  const now = new Date()
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
}

/** What the page can tell before sending; the service checks everything again. */
const problemsOf = (form: Form): Errors => {
  const problems: Errors = {}
  if (!isDecimalAmount(form.amount.trim())) {
    problems.amount =
      'Enter the value of one share as a number such as 12.50 (no sign, a point for decimals).'
  }
  if (!/^[A-Z]{3}$/.test(form.currency.trim().toUpperCase())) {
    problems.currency = 'Enter a three-letter ISO 4217 currency code, such as EUR or USD.'
  }
  if (!/^\d{4}-\d\d-\d\d$/.test(form.asOf.trim())) {
    problems.asOf = 'Enter the date as YYYY-MM-DD.'
  }
  return problems
}

const ValueForm = ({
  program,
  current,
  onSaved,
}: {
  program: Program
  current: ProgramValue | undefined
  onSaved: (value: ProgramValue) => void
}) => {
  const { issuerId } = useScope()
  const [form, setForm] = useState<Form>({
    amount: '',
    currency: current?.currency ?? program.tokenValueCurrency ?? 'EUR',
    asOf: today(),
    method: '',
  })
  const action = useAction()
  const { errors, run } = action
  const bound = (field: keyof Form) => ({
    value: form[field],
    onValue: (value: string) => setForm({ ...form, [field]: value }),
    error: errors[field],
  })
  const save = (event: Event) => {
    event.preventDefault()
    void run(async () => {
      const saved = await setProgramValue(issuerId, program.id, {
        amount: form.amount.trim(),
        currency: form.currency.trim().toUpperCase(),
        asOf: form.asOf.trim(),
        method: form.method.trim() === '' ? null : form.method,
      })
      setForm({ ...form, amount: '', method: '' })
      onSaved(saved)
    }, problemsOf(form))
  }
  return (
    <FormPanel
      title="Set the value of a share"
      label="Save the value"
      action={action}
      onSubmit={save}
    >
      <div class="form-row">
        <TextField
          label="Value of one share"
          hint="A decimal number such as 12.50, kept exactly."
          inputMode="numeric"
          required
          {...bound('amount')}
        />
        <TextField
          label="Currency"
          hint="ISO 4217 code, such as EUR or USD."
          required
          maxLength={3}
          {...bound('currency')}
        />
        <TextField
          label="As of"
          hint="YYYY-MM-DD: the date the value was calculated, not in the future."
          required
          {...bound('asOf')}
        />
      </div>
      <TextField
        label="Method"
        hint="Optional: how the value was calculated (one line, at most 500 characters)."
        maxLength={500}
        {...bound('method')}
      />
    </FormPanel>
  )
}

const HISTORY_COLUMNS = ['As of', 'Value', 'Method', 'Set by', 'Set at'] as const

/** One entry of the history; the current one marked. */
const ValueRow = ({ item }: { item: ProgramValue }) => {
  const mark = item.current ? (
    <>
      {' '}
      <span class="badge">current</span>
    </>
  ) : null
  return (
    <tr>
      <td>
        {item.asOf}
        {mark}
      </td>
      <td>{`${item.amount} ${item.currency}`}</td>
      <td>{item.method ? <bdi>{item.method}</bdi> : '—'}</td>
      <td>{item.setBy}</td>
      <td>
        <Time iso={item.setAt} />
      </td>
    </tr>
  )
}

/** The program's value of a share, its history, and (owners, admins) the form to set it. */
export const ProgramValuePanel = ({
  program,
  onSaved,
}: {
  program: Program
  onSaved: (text: string) => void
}) => {
  const scope = useScope()
  const [more, setMore] = useState<ProgramValuePage[]>([])
  const { data, error, reload } = useLoad(
    () => listProgramValues(scope.issuerId, program.id),
    [scope.issuerId, program.id],
  )
  const pages = data ? [data, ...more] : []
  const items = pages.flatMap((page) => page.data)
  const next = pages.at(-1)?.nextCursor ?? null
  const current = items.find((item) => item.current)
  const loadMore = async () => {
    if (next === null) return
    const page = await listProgramValues(scope.issuerId, program.id, next)
    setMore([...more, page])
  }
  return (
    <>
      <section class="panel" aria-labelledby="share-value">
        <h2 id="share-value">Value of a share</h2>
        <Facts
          facts={[
            [
              'Current value',
              program.tokenValue === null ? (
                'No value set yet'
              ) : (
                <span data-testid="current-value">
                  {program.tokenValue} {program.tokenValueCurrency} as of{' '}
                  {program.tokenValueCalculatedDate}
                </span>
              ),
            ],
            current?.method ? ['Method', <bdi>{current.method}</bdi>] : null,
          ]}
        />
        {error ? <p class="error">{error}</p> : null}
        {items.length > 0 ? (
          <DataTable caption="Value history, latest date first" columns={HISTORY_COLUMNS}>
            {items.map((item) => (
              <ValueRow key={item.id} item={item} />
            ))}
          </DataTable>
        ) : data ? (
          <p>No value has been set for this program.</p>
        ) : null}
        {next !== null ? (
          <button type="button" onClick={() => void loadMore()}>
            Show older values
          </button>
        ) : null}
      </section>
      {can(scope.role, 'admin') ? (
        <ValueForm
          program={program}
          current={current}
          onSaved={(saved) => {
            setMore([])
            void reload()
            onSaved(
              saved.current
                ? `The value of a share is now ${saved.amount} ${saved.currency} as of ${saved.asOf}.`
                : `Saved ${saved.amount} ${saved.currency} as of ${saved.asOf} in the history; a later value stays current.`,
            )
          }}
        />
      ) : null}
    </>
  )
}
