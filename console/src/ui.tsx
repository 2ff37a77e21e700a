import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks'
import { errorText, formatNumber } from './ui-format'

/**
 * Shared pieces of the pages: alerts, titles, dialogs, facts, badges and loading (fields and
 * forms are in ui-forms.tsx, numbers and times in ui-format.tsx).
 */

// The server's own list and rule (a module of plain data, no server dependencies).
export { ROLES, roleAllows as can } from '../../functions/domain/people'
// Tables and paging live in ui-lists.tsx; every page imports them from here.
export { DataTable, Pager, usePager } from './ui-lists'

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

/**
 * A page's data (useLoad) and what its last action said: `done(text)` shows the text and reads
 * the data again, so the page shows the change it announces.
 */
export const usePageData = <T,>(load: () => Promise<T>, deps: unknown[]) => {
  const loaded = useLoad(load, deps)
  const [message, setMessage] = useState('')
  const done = (text: string) => {
    setMessage(text)
    void loaded.reload()
  }
  return { ...loaded, message, setMessage, done }
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

/** A button that acts on one thing; its accessible name says which (`Pause Spring referrals`). */
export const ActOn = ({
  label,
  of,
  danger,
  disabled,
  onClick,
}: {
  label: string
  of: string
  danger?: boolean
  disabled?: boolean
  onClick: () => void
}) => (
  <button
    type="button"
    class={danger ? 'danger-outline' : undefined}
    aria-label={`${label} ${of}`}
    onClick={onClick}
    disabled={disabled}
  >
    {label}
  </button>
)
