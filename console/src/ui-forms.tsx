import type { ComponentChildren, JSX, Ref } from 'preact'
import { useId, useState } from 'preact/hooks'
import { ApiError } from './api'
import { Alert } from './ui'
import { errorText } from './ui-format'

/**
 * The forms' pieces: a field with its label, hint and error; the text and select fields; a form's
 * end (its error and buttons); and the action a form or button runs, with its errors explained.
 */

export type Errors = Record<string, string>

/** What a failed action says: messages next to their fields, or one for the whole form. */
export type Explained = { fields?: Errors; message?: string }

/** A 400's field errors by field name (renamed to the form's), else the error's text. */
export const explainApiError = (error: unknown, rename: Errors = {}): Explained => {
  const fields: Errors = {}
  for (const e of error instanceof ApiError ? error.errors : []) {
    const field = rename[e.field] ?? e.field
    fields[field] = fields[field] ? `${fields[field]}; ${e.message}` : e.message
  }
  return Object.keys(fields).length > 0 ? { fields } : { message: errorText(error) }
}

/** A message an action has for the person, shown as it is on the form. */
export class FormMessage extends Error {}

/**
 * One action of a page (a form sent, a button pressed): `busy` while it runs, then what went
 * wrong, by field or for the form. `run(work, problems)` shows the page's own findings first
 * and sends nothing while there are any.
 */
export const useAction = (explain: (error: unknown) => Explained = explainApiError) => {
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Errors>({})
  const [error, setError] = useState('')
  const run = async (work: () => Promise<unknown>, problems: Errors = {}) => {
    setError('')
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    setBusy(true)
    try {
      await work()
    } catch (e) {
      const { fields = {}, message = '' } =
        e instanceof FormMessage ? { message: e.message } : explain(e)
      setErrors(fields)
      setError(message)
    } finally {
      setBusy(false)
    }
  }
  return { busy, errors, error, run, setErrors, setError }
}

/** A form's closing part: its error, then its buttons (the first one sends it). */
export const FormEnd = ({
  error,
  busy,
  label,
  children,
}: {
  error: string
  busy: boolean
  label: string
  children?: ComponentChildren
}) => (
  <>
    <Alert>{error}</Alert>
    <div class="actions">
      <button type="submit" class="primary" disabled={busy}>
        {label}
      </button>
      {children}
    </div>
  </>
)

type FieldProps = {
  label: string
  hint?: ComponentChildren
  error?: string | undefined
  children: (props: {
    id: string
    'aria-describedby'?: string
    'aria-invalid'?: 'true'
  }) => JSX.Element
}

/** A label, the control, its rule (hint) and its error, tied together for screen readers. */
export const Field = ({ label, hint, error, children }: FieldProps) => {
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const describedBy = [hint ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ')
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      {children({
        id,
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
        ...(error ? { 'aria-invalid': 'true' as const } : {}),
      })}
      {hint ? (
        <div class="hint" id={hintId}>
          {hint}
        </div>
      ) : null}
      {error ? (
        <div class="field-error" id={errorId}>
          {error}
        </div>
      ) : null}
    </div>
  )
}

export const inputValue = (event: Event) =>
  (event.currentTarget as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement).value

type InputProps = {
  type?: 'text' | 'email' | 'password' | 'search' | 'datetime-local'
  autocomplete?: string
  inputMode?: 'numeric'
  required?: boolean
  minLength?: number
  maxLength?: number
  spellcheck?: boolean
  label: string
  hint?: ComponentChildren
  error?: string | undefined
  value: string
  onValue: (value: string) => void
  inputRef?: Ref<HTMLInputElement>
}

/** A text input in its Field: the most common control of the forms. */
export const TextField = ({
  label,
  hint,
  error,
  value,
  onValue,
  inputRef,
  ...input
}: InputProps) => (
  <Field label={label} hint={hint} error={error}>
    {(field) => (
      <input
        // Preact's input types are a union by `type`: this union of types is one of them.
        {...(input as JSX.IntrinsicElements['input'])}
        {...field}
        ref={inputRef}
        value={value}
        onInput={(e) => onValue(inputValue(e))}
      />
    )}
  </Field>
)

/** A select in its Field, its options as value and label. */
export const SelectField = <T extends string>(props: {
  label: string
  hint?: ComponentChildren
  error?: string | undefined
  value: T
  onValue: (value: T) => void
  options: readonly (T | { value: T; label: string })[]
}) => (
  <Field label={props.label} hint={props.hint} error={props.error}>
    {(field) => (
      <select {...field} value={props.value} onChange={(e) => props.onValue(inputValue(e) as T)}>
        {props.options.map((o) => {
          const { value, label } = typeof o === 'string' ? { value: o, label: o } : o
          return (
            <option key={value} value={value}>
              {label}
            </option>
          )
        })}
      </select>
    )}
  </Field>
)

/** A textarea in its Field: a description, terms, pasted CSV. */
export const TextAreaField = (props: {
  label: string
  hint?: ComponentChildren
  error?: string | undefined
  rows: number
  spellcheck?: boolean
  value: string
  onValue: (value: string) => void
}) => (
  <Field label={props.label} hint={props.hint} error={props.error}>
    {(field) => (
      <textarea
        {...field}
        rows={props.rows}
        spellcheck={props.spellcheck}
        value={props.value}
        onInput={(e) => props.onValue(inputValue(e))}
      />
    )}
  </Field>
)

/** Radio buttons of one name, each in its label: the choice of a few values. */
export const RadioChoices = <T extends string>(props: {
  name: string
  value: T
  onValue: (value: T) => void
  options: readonly (readonly [value: T, label: string])[]
  labelClass?: string
}) => (
  <>
    {props.options.map(([value, label]) => (
      <label key={value} class={props.labelClass}>
        <input
          type="radio"
          name={props.name}
          value={value}
          checked={props.value === value}
          onChange={() => props.onValue(value)}
        />{' '}
        {label}
      </label>
    ))}
  </>
)

/** A form in its own panel: the heading names it; its end says its error and sends it. */
export const FormPanel = (props: {
  title: ComponentChildren
  label: string
  onSubmit: (event: Event) => void
  /** The form's action (useAction): busy while it runs, then its error for the whole form. */
  action: { busy: boolean; error: string }
  children: ComponentChildren
  /** Buttons beside the one that sends it (a cancel). */
  more?: ComponentChildren
}) => {
  const id = useId()
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      <form onSubmit={props.onSubmit} noValidate>
        {props.children}
        <FormEnd error={props.action.error} busy={props.action.busy} label={props.label}>
          {props.more}
        </FormEnd>
      </form>
    </section>
  )
}

/**
 * A form's text values by name, each bound to its field: `{...bind('email')}` gives a TextField its
 * value, its setter and its error (from the form's useAction).
 */
export const useFields = <F extends Record<string, string>>(initial: F, errors: Errors) => {
  const [values, setValues] = useState(initial)
  const bind = (name: keyof F & string) => ({
    value: values[name] as string,
    onValue: (value: string) => setValues((now) => ({ ...now, [name]: value })),
    error: errors[name],
  })
  return { values, reset: () => setValues(initial), bind }
}
