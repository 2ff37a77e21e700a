import type { ComponentChildren, JSX, Ref } from 'preact'
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks'
import { ApiError, SignedOut } from './api'

/** Shared pieces of the pages: fields with their errors, alerts, dialogs, dates and numbers. */

// The server's own list and rule (a module of plain data, no server dependencies).
export { ROLES, roleAllows as can } from '../../functions/domain/people'
// Tables and paging live in ui-lists.tsx; every page imports them from here.
export { DataTable, Pager, usePager } from './ui-lists'

const numberFormat = new Intl.NumberFormat('en-US')
export const formatNumber = (value: number) => numberFormat.format(value)

/** A number as typed (`1,000`, `1_000`, `1 000`): its digits, for a rule and a body. */
export const digitsOf = (typed: string) => typed.trim().replace(/[,_ ]/g, '')

const pad = (n: number) => String(n).padStart(2, '0')
/**
 * `2026-11-25 22:19` in the reader's time zone (`22:19:05` with `seconds`, where a few seconds
 * matter: a delivery's attempts); the full ISO time is in the element's title.
 */
export const formatTime = (iso: string | null | undefined, seconds = false) => {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}${seconds ? `:${pad(d.getSeconds())}` : ''}`
}

export const Time = ({ iso, seconds }: { iso: string | null | undefined; seconds?: boolean }) =>
  iso ? (
    <time dateTime={iso} title={iso}>
      {formatTime(iso, seconds)}
    </time>
  ) : null

/** The error's message for the person; the request id when the service gave one. */
export const errorText = (error: unknown) => {
  if (error instanceof ApiError) {
    return error.requestId ? `${error.message} (request ${error.requestId})` : error.message
  }
  if (error instanceof SignedOut) return 'You are signed out.'
  return error instanceof Error ? error.message : String(error)
}

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

export const Alert = ({ children }: { children: ComponentChildren }) =>
  children ? (
    <div class="alert" role="alert">
      {children}
    </div>
  ) : null

export const Status = ({ children }: { children: ComponentChildren }) => (
  <div class="status" role="status">
    {children}
  </div>
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
  type?: 'text' | 'email' | 'password' | 'search'
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

type LoadState<T> = {
  data: T | undefined
  /** Why the last run failed, for the person; empty when it did not. */
  error: string
  loading: boolean
  reload: () => Promise<void>
}

/** Loads data for a page; reload() runs it again. Results of a superseded run are dropped. */
export const useLoad = <T,>(load: () => Promise<T>, deps: unknown[]): LoadState<T> => {
  const [data, setData] = useState<T>()
  const [error, setError] = useState('')
  const [loading, setLoading] = useState(true)
  const run = useRef(0)
  const reload = useCallback(async () => {
    const mine = ++run.current
    setLoading(true)
    try {
      const value = await load()
      if (mine !== run.current) return
      setData(value)
      setError('')
    } catch (e) {
      if (mine !== run.current) return
      setError(errorText(e))
    } finally {
      if (mine === run.current) setLoading(false)
    }
  }, deps)
  useEffect(() => {
    void reload()
  }, [reload])
  return { data, error, loading, reload }
}

/** The page's title: in the tab, and focused after navigation so screen readers announce it. */
export const PageTitle = ({ children, title }: { children: ComponentChildren; title: string }) => {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    document.title = `${title} · Virtual Shares console`
    // After a link was followed (or on first load), the new page's title takes the focus, so a
    // screen reader announces it and Tab starts from the page; a control that changed the page
    // in place (the mode switch, a form) keeps it.
    const active = document.activeElement
    if (active === null || active === document.body || active.tagName === 'A') {
      ref.current?.focus({ preventScroll: true })
    }
  }, [title])
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  )
}

type DialogProps = {
  open: boolean
  title: string
  children: ComponentChildren
  confirmLabel: string
  danger?: boolean
  busy?: boolean
  error?: unknown
  onConfirm: () => void
  onClose: () => void
  /** The closing button's label (default "Cancel"), when the action itself is a cancel. */
  closeLabel?: string
  /** Extra content in the form (a select of the roll's grace period). */
}

/** A modal confirmation (the browser's <dialog>: focus stays inside, Escape cancels). */
export const ConfirmDialog = ({
  open,
  title,
  children,
  confirmLabel,
  danger,
  busy,
  error,
  onConfirm,
  onClose,
  closeLabel = 'Cancel',
}: DialogProps) => {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  // A `close` event comes a task after the close itself. One of ours (Escape, or `open` turned
  // false) must not be taken for a new request to close: by then the opener may have asked for
  // the dialog again, and that press would be undone.
  const closedByUs = useRef(false)
  const closeNow = () => {
    const dialog = ref.current
    if (!dialog?.open) return
    closedByUs.current = true
    dialog.close()
  }
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (open && !dialog.open) dialog.showModal()
    if (!open) closeNow()
  }, [open])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      // Escape closes at once (focus back on the opener) and says so through onClose, instead
      // of the browser's own close, whose late `close` event undid an Enter on the opener
      // pressed in between.
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return
        event.preventDefault()
        closeNow()
        onClose()
      }}
      onClose={() => {
        if (closedByUs.current) {
          closedByUs.current = false
          return
        }
        // Closed by the browser some other way (a platform's back gesture).
        if (open) onClose()
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault()
          onConfirm()
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
        {error ? <Alert>{errorText(error)}</Alert> : null}
        <div class="actions">
          <button type="submit" class={danger ? 'danger' : 'primary'} disabled={busy}>
            {confirmLabel}
          </button>
          <button type="button" onClick={onClose} disabled={busy}>
            {closeLabel}
          </button>
        </div>
      </form>
    </dialog>
  )
}

/** Copies text to the clipboard, and says so. */
export const CopyButton = ({ text, label }: { text: string; label: string }) => {
  const [done, setDone] = useState<'copied' | 'failed'>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setDone('copied')
    } catch {
      setDone('failed')
    }
  }
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {done === 'copied'
          ? 'Copied to the clipboard.'
          : done === 'failed'
            ? 'Copy failed: select the text and copy it.'
            : ''}
      </span>
    </span>
  )
}

/** Issued against the pool: a meter when there is a pool, "no limit" otherwise. */
export const PoolGauge = ({
  name,
  pool,
  issued,
  remaining,
}: {
  name: string
  pool: number | null
  issued: number
  remaining: number | null
}) => {
  if (pool === null) {
    return <span class="gauge">{formatNumber(issued)} issued · no pool limit</span>
  }
  return (
    <span class="gauge">
      <meter
        min={0}
        max={pool}
        value={issued}
        low={pool * 0.75}
        high={pool * 0.9}
        optimum={0}
        aria-label={`Pool used by ${name}`}
        aria-valuetext={`${formatNumber(issued)} of ${formatNumber(pool)} issued`}
      />
      <span>
        {formatNumber(issued)} / {formatNumber(pool)} issued · {formatNumber(remaining ?? 0)} left
      </span>
    </span>
  )
}

export const StatusBadge = ({ status }: { status: string }) => (
  <span class={`badge badge-${status}`}>{status}</span>
)

/** One fact of a thing: its term, its value, and a class for the value (`failure`). */
export type Fact = [term: string, value: ComponentChildren, valueClass?: string]

/** A program's, grant's, batch's or endpoint's facts as one description list; falsy ones are left out. */
export const Facts = ({ facts }: { facts: (Fact | false | null | undefined)[] }) => (
  <dl class="facts">
    {facts.map(
      (fact) =>
        fact && (
          <div key={fact[0]}>
            <dt>{fact[0]}</dt>
            <dd class={fact[2]}>{fact[1]}</dd>
          </div>
        ),
    )}
  </dl>
)
