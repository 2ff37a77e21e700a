import { useState } from 'preact/hooks'
import {
  checkOfferSettings,
  OFFER_SETTINGS_LIMITS as LIMITS,
} from '../../../functions/domain/offer-settings'
import type { OfferSettingsBody, Program } from '../api'
import { useScope } from '../scope'
import { can, Facts } from '../ui'
import { formatNumber } from '../ui-format'
import {
  type Errors,
  explainApiError,
  FormPanel,
  RadioChoices,
  TextAreaField,
  TextField,
  useAction,
} from '../ui-forms'

/** A field the service names (`countries[2]`, `terms.text`) as the form's field. */
const formField = (field: string) =>
  field.startsWith('countries')
    ? 'countries'
    : field === 'terms.text'
      ? 'termsText'
      : field === 'terms.url'
        ? 'termsUrl'
        : field === 'terms'
          ? 'termsText'
          : field

type Form = {
  offerDays: string
  minAge: string
  countries: string
  description: string
  termsKind: 'text' | 'url'
  termsText: string
  termsUrl: string
  poolLowThreshold: string
}

const TERMS_KINDS = [
  ['text', 'Text'],
  ['url', 'Link'],
] as const

const formOf = (program: Program): Form => ({
  offerDays: String(program.offerDays),
  minAge: program.minAge === null ? '' : String(program.minAge),
  countries: program.countries?.join(', ') ?? '',
  description: program.description ?? '',
  termsKind: program.terms?.url !== undefined ? 'url' : 'text',
  termsText: program.terms?.text ?? '',
  termsUrl: program.terms?.url ?? '',
  poolLowThreshold: program.poolLowThreshold === null ? '' : String(program.poolLowThreshold),
})

// The service's rule says `null` (its JSON); the form's field is left empty for that.
const POOL_LOW_RULE =
  'The threshold must be a whole number of shares, 1 or more; leave it empty for no pool-low event.'

const numberOr = (value: string): unknown =>
  /^\s*\d+\s*$/.test(value) ? Number(value) : value.trim() === '' ? undefined : value

/** The PATCH body of the form: every setting, empty meaning "no rule". */
const bodyOf = (form: Form): Record<string, unknown> => {
  const countries = form.countries
    .split(/[\s,;]+/)
    .map((c) => c.trim())
    .filter(Boolean)
  const terms =
    form.termsKind === 'url'
      ? form.termsUrl.trim() === ''
        ? undefined
        : { url: form.termsUrl.trim() }
      : form.termsText.trim() === ''
        ? undefined
        : { text: form.termsText }
  return {
    offerDays: numberOr(form.offerDays) ?? '',
    minAge: form.minAge.trim() === '' ? null : numberOr(form.minAge),
    countries: countries.length === 0 ? null : countries,
    description: form.description.trim() === '' ? null : form.description,
    poolLowThreshold: form.poolLowThreshold.trim() === '' ? null : numberOr(form.poolLowThreshold),
    // Terms are replaced, never removed: left empty, the current ones stay.
    ...(terms === undefined ? {} : { terms }),
  }
}

/** The settings as they are; admins get the button that opens the form. */
const SettingsView = ({ program, onChange }: { program: Program; onChange?: () => void }) => {
  const terms = program.terms
  return (
    <section class="panel" aria-labelledby="offer-settings">
      <h2 id="offer-settings">Offer settings</h2>
      <Facts
        facts={[
          ['Offer window', `${program.offerDays} day${program.offerDays === 1 ? '' : 's'}`],
          ['Minimum age', program.minAge === null ? 'None' : `${program.minAge} years`],
          ['Countries', program.countries === null ? 'Any' : program.countries.join(', ')],
          [
            'Pool-low event',
            program.poolLowThreshold === null
              ? 'None'
              : `At ${formatNumber(program.poolLowThreshold)} share${program.poolLowThreshold === 1 ? '' : 's'} left`,
          ],
          [
            'Terms',
            terms === null ? (
              'None yet'
            ) : terms.url ? (
              <>
                Version {terms.version}: <a href={terms.url}>{terms.url}</a>
              </>
            ) : (
              `Version ${terms.version}: text of ${formatNumber([...(terms.text ?? '')].length)} characters`
            ),
          ],
        ]}
      />
      {program.description ? (
        <p class="description">
          <bdi>{program.description}</bdi>
        </p>
      ) : null}
      {onChange ? (
        <div class="actions">
          <button type="button" onClick={onChange}>
            Change offer settings
          </button>
        </div>
      ) : null}
    </section>
  )
}

/** The Terms: text or a link; a change makes the next version. */
const TermsFields = ({
  form,
  setForm,
  errors,
  terms,
}: {
  form: Form
  setForm: (form: Form) => void
  errors: Errors
  terms: Program['terms']
}) => {
  const set = (field: keyof Form) => (value: string) => setForm({ ...form, [field]: value })
  return (
    <fieldset>
      <legend>
        Terms of Virtual Shares{' '}
        {terms ? (
          <span class="hint">(now version {terms.version}; a change makes the next version)</span>
        ) : (
          <span class="hint">(none yet; the first become version 1)</span>
        )}
      </legend>
      <div class="radio-row">
        <RadioChoices
          name="terms-kind"
          value={form.termsKind}
          onValue={(termsKind) => setForm({ ...form, termsKind })}
          options={TERMS_KINDS}
        />
      </div>
      {form.termsKind === 'text' ? (
        <TextAreaField
          label="Terms text"
          hint={`At most ${formatNumber(LIMITS.termsTextMax)} characters.`}
          error={errors.termsText}
          rows={6}
          value={form.termsText}
          onValue={set('termsText')}
        />
      ) : (
        <TextField
          label="Terms link"
          hint="An https:// address where the terms are published."
          error={errors.termsUrl}
          value={form.termsUrl}
          onValue={set('termsUrl')}
        />
      )}
    </fieldset>
  )
}

/** The settings' form, filled in with the program's; checked by the service's own rules first. */
const SettingsForm = ({
  program,
  onSaved,
  onCancel,
}: {
  program: Program
  onSaved: (answer: Program) => void
  onCancel: () => void
}) => {
  const { api } = useScope()
  const [form, setForm] = useState<Form>(() => formOf(program))
  const action = useAction((e) => {
    const explained = explainApiError(e)
    if (!explained.fields) return explained
    const fields: Errors = {}
    for (const [field, message] of Object.entries(explained.fields)) {
      fields[formField(field)] = message
    }
    return { fields }
  })
  const { busy, errors, run } = action
  const set = (field: keyof Form) => (value: string) => setForm({ ...form, [field]: value })
  // A field of the form as a TextField's: its value, its setter, its error.
  const bound = (field: keyof Form) => ({
    value: form[field],
    onValue: set(field),
    error: errors[field],
  })

  const save = (event: Event) => {
    event.preventDefault()
    const body = bodyOf(form)
    const checked = checkOfferSettings(body)
    const problems: Errors = {}
    if ('problems' in checked) {
      for (const p of checked.problems) {
        const field = formField(p.field)
        const said =
          field === 'poolLowThreshold'
            ? POOL_LOW_RULE
            : `${p.field.replace(/\[\d+\]$/, '')} ${p.rule}`
        problems[field] = problems[field] ? `${problems[field]}; ${said}` : said
      }
    }
    void run(async () => {
      onSaved(await api.offerSettings(program.id, body as OfferSettingsBody))
    }, problems)
  }

  const terms = program.terms
  return (
    <FormPanel
      title="Offer settings"
      label="Save offer settings"
      action={action}
      onSubmit={save}
      more={
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      }
    >
      <div class="form-row">
        <TextField
          label="Offer window (days)"
          hint="1 to 365. How long a recipient has to accept; applies to grants made from now on."
          {...bound('offerDays')}
          inputMode="numeric"
          required
        />
        <TextField
          label="Minimum age"
          hint={`${LIMITS.minAge.min} to ${LIMITS.minAge.max} years; empty for none. Recipients then give their date of birth; only the result is kept.`}
          {...bound('minAge')}
          inputMode="numeric"
        />
      </div>
      <TextField
        label="Allowed countries"
        hint="ISO 3166-1 alpha-2 codes, separated by commas (such as DE, FR, US); empty for any country."
        {...bound('countries')}
      />
      <TextAreaField
        label="Description"
        hint={`Shown to recipients on their page and in the e-mail. At most ${formatNumber(LIMITS.descriptionMax)} characters.`}
        error={errors.description}
        rows={3}
        value={form.description}
        onValue={set('description')}
      />
      <TermsFields form={form} setForm={setForm} errors={errors} terms={terms} />
      <TextField
        label="Pool-low threshold (shares left)"
        hint={
          program.pool === null
            ? 'This program has no pool limit, so its pool never runs low. Empty for none.'
            : 'A whole number, 1 or more; empty for none. When the shares left in the pool fall to it, a program.pool_low webhook event is sent, once per crossing.'
        }
        {...bound('poolLowThreshold')}
        inputMode="numeric"
      />
    </FormPanel>
  )
}

/** What the recipients of a program see and must meet; admins change it, others read it. */
export const OfferSettings = ({
  program: given,
  onSaved,
}: {
  program: Program
  onSaved: (program: Program, text: string) => void
}) => {
  const { role } = useScope()
  // What the last save answered, until the page hands down a newer program (its reload): the
  // view and a reopened form show the saved settings at once, not the ones from before the save.
  const [saved, setSaved] = useState<{ over: Program; program: Program } | undefined>(undefined)
  const program = saved !== undefined && saved.over === given ? saved.program : given
  const [editing, setEditing] = useState(false)
  if (!editing)
    return (
      <SettingsView
        program={program}
        {...(can(role, 'admin') ? { onChange: () => setEditing(true) } : {})}
      />
    )
  return (
    <SettingsForm
      program={program}
      onCancel={() => setEditing(false)}
      onSaved={(answer) => {
        setSaved({ over: given, program: answer })
        setEditing(false)
        onSaved(
          answer,
          answer.terms && answer.terms.version !== program.terms?.version
            ? `Offer settings saved. The terms are now version ${answer.terms.version}.`
            : 'Offer settings saved.',
        )
      }}
    />
  )
}
