import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { useScope } from './scope'
import { Alert, ConfirmDialog, CopyButton, PageTitle, useLoad } from './ui'
import { errorText } from './ui-format'
import { Field, useAction } from './ui-forms'

/**
 * Shared pieces of the pages loaded on demand (a program, a grant, the webhooks): a page that was
 * not found, a secret shown once, a button that asks first, a list read a page at a time. Apart
 * from ui.tsx (and ui-forms.tsx, ui-format.tsx), which the first page loads, so that the first
 * page does not carry them.
 */

/** A page whose subject could not be read: why, and the way back (by default, the programs). */
export const NotFound = ({
  title,
  error,
  back,
  backText = 'Back to the programs',
}: {
  title: string
  error: string
  back?: string
  backText?: string
}) => {
  const scope = useScope()
  return (
    <>
      <PageTitle title={title}>{title}</PageTitle>
      <Alert>{error}</Alert>
      <p>
        <a href={back ?? scope.at('programs')}>{backText}</a>
      </p>
    </>
  )
}

/** A secret shown once (a key's, a signing secret): selected on focus, and a button that copies it. */
export const SecretField = ({
  label,
  secret,
  copyLabel,
}: {
  label: string
  secret: string
  copyLabel: string
}) => (
  <>
    <Field label={label}>
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
    <CopyButton text={secret} label={copyLabel} />
  </>
)

/**
 * A secret shown this once (a new API key, a webhook's signing secret): the warning, the field to
 * copy it from, what else there is to know, and the button that says it is stored.
 */
export const ShownOnce = (props: {
  id: string
  title: ComponentChildren
  /** What happens to it after this, said after "shown only once". */
  kept: string
  label: string
  secret: string
  copyLabel: string
  doneLabel: string
  onDone: () => void
  intro?: ComponentChildren
  children?: ComponentChildren
}) => (
  <section class="panel reveal" aria-labelledby={props.id}>
    <h2 id={props.id}>{props.title}</h2>
    {props.intro}
    <p class="warning" role="alert">
      <strong>Copy this secret now: it is shown only once.</strong> {props.kept}
    </p>
    <SecretField label={props.label} secret={props.secret} copyLabel={props.copyLabel} />
    {props.children}
    <div class="actions">
      <button type="button" class="primary" onClick={props.onDone}>
        {props.doneLabel}
      </button>
    </div>
  </section>
)

/** A program of this issuer, read for a page about something of it (send to many, a batch). */
export const useProgram = (programId: string) => {
  const { api } = useScope()
  return useLoad(() => api.program(programId), [api, programId])
}

/** The way back from a page of a program's: the programs, then the program (by its name). */
export const ProgramCrumbs = ({ programId, name }: { programId: string; name?: string }) => {
  const scope = useScope()
  return (
    <p class="crumbs">
      <a href={scope.at('programs')}>Programs</a> ›{' '}
      <a href={scope.at(`programs/${programId}`)}>{name ?? programId}</a> ›
    </p>
  )
}

/**
 * A button that asks first: its dialog says what will happen, its confirm button does it. While it
 * runs the button is disabled (with `busyLabel`, if given); what went wrong shows in the dialog,
 * and next to the button once the dialog is closed. Opening it again starts afresh.
 */
export const ConfirmButton = ({
  label,
  busyLabel,
  buttonLabel,
  buttonClass,
  disabled,
  title,
  confirmLabel,
  closeLabel,
  danger,
  onAsk,
  onConfirm,
  children,
}: {
  /** The button's text. */
  label: string
  busyLabel?: string
  /** The button's accessible name, where its text alone does not say what it acts on. */
  buttonLabel?: string
  buttonClass?: string
  disabled?: boolean
  title: string
  confirmLabel: string
  closeLabel?: string
  danger?: boolean
  /** Runs as the dialog opens. */
  onAsk?: () => void
  /** The work; the dialog closes once it is done, and stays open (with the error) if it fails. */
  onConfirm: () => Promise<unknown>
  /** What will happen, said in the dialog. */
  children: ComponentChildren
}) => {
  const [asking, setAsking] = useState(false)
  // Every failure is said in words: a confirmation has no fields to put a message next to.
  const { busy, error, run, setError } = useAction((e) => ({ message: errorText(e) }))
  return (
    <>
      <button
        type="button"
        class={buttonClass}
        aria-label={buttonLabel}
        disabled={busy || disabled}
        onClick={() => {
          setError('')
          onAsk?.()
          setAsking(true)
        }}
      >
        {busy && busyLabel ? busyLabel : label}
      </button>
      <Alert>{!asking && error}</Alert>
      <ConfirmDialog
        open={asking}
        title={title}
        confirmLabel={confirmLabel}
        closeLabel={closeLabel}
        danger={danger}
        busy={busy}
        error={asking && error}
        onConfirm={() =>
          run(async () => {
            await onConfirm()
            setAsking(false)
          })
        }
        onClose={() => setAsking(false)}
      >
        {children}
      </ConfirmDialog>
    </>
  )
}

type PageOf<T> = { items: T[]; next: string | null }

/**
 * A list read a page at a time, the first page as `deps` change, the next on `loadMore`. While
 * `pollEvery` of what is shown gives a time (a batch still moves, a message still waits), the
 * newest (as many as are shown) are read again after it. Every page read is merged into what is
 * shown by `merge` (which also orders it), as are items given to `put`.
 */
export const usePagedList = <T,>({
  load,
  merge,
  deps,
  pollEvery,
  onPolled,
  pageSize = 20,
}: {
  load: (params: { cursor?: string; limit: number }) => Promise<PageOf<T>>
  merge: (fresh: T[], shown: T[]) => T[]
  deps: unknown[]
  /** How long until the list is read again (in ms), or undefined: not again. */
  pollEvery?: (shown: T[]) => number | undefined
  /** What was shown, and the newest as just read again: before they are merged. */
  onPolled?: (shown: T[], fresh: T[]) => void
  pageSize?: number
}) => {
  const [items, setItems] = useState<T[]>([])
  const [next, setNext] = useState<string | null>(null)
  const [loaded, setLoaded] = useState(false)
  const [error, setError] = useState('')
  const [more, setMore] = useState(false)
  const [tick, setTick] = useState(0)
  const shown = useRef(items)
  shown.current = items
  // The effects run on `deps`, not on each render's new functions: they call the latest ones.
  const latest = useRef({ load, merge, onPolled })
  latest.current = { load, merge, onPolled }
  const pollMs = pollEvery?.(items)

  // The first page.
  useEffect(() => {
    let stopped = false
    setLoaded(false)
    setItems([])
    setNext(null)
    latest.current
      .load({ limit: pageSize })
      .then((page) => {
        if (stopped) return
        setItems(page.items)
        setNext(page.next)
        setError('')
      })
      .catch((e: unknown) => {
        if (!stopped) setError(errorText(e))
      })
      .finally(() => {
        if (!stopped) setLoaded(true)
      })
    return () => {
      stopped = true
    }
  }, deps)

  // While `pollEvery` says so, the newest again; each read (its tick) sets the next one.
  useEffect(() => {
    if (pollMs === undefined) return
    let stopped = false
    const timer = window.setTimeout(async () => {
      try {
        const page = await latest.current.load({
          limit: Math.min(100, Math.max(pageSize, shown.current.length)),
        })
        if (stopped) return
        latest.current.onPolled?.(shown.current, page.items)
        setItems((before) => latest.current.merge(page.items, before))
        setError('')
      } catch (e) {
        if (!stopped) setError(errorText(e))
      } finally {
        if (!stopped) setTick((t) => t + 1)
      }
    }, pollMs)
    return () => {
      stopped = true
      window.clearTimeout(timer)
    }
  }, [...deps, pollMs, tick])

  const loadMore = async () => {
    if (!next) return
    setMore(true)
    try {
      const page = await latest.current.load({ cursor: next, limit: pageSize })
      setItems((before) => latest.current.merge(page.items, before))
      setNext(page.next)
      setError('')
    } catch (e) {
      setError(errorText(e))
    } finally {
      setMore(false)
    }
  }

  const put = (fresh: T[]) => setItems((before) => latest.current.merge(fresh, before))
  return { items, next, loaded, error, more, loadMore, put }
}

/**
 * A paged list's states around its table (given as children, shown when there is an item): why
 * it could not be read, that it is loading, that it is empty; then the button for the next page.
 */
export const PagedList = ({
  list,
  loadingText,
  emptyText,
  moreLabel,
  children,
}: {
  list: Pick<
    ReturnType<typeof usePagedList>,
    'items' | 'next' | 'loaded' | 'error' | 'more' | 'loadMore'
  >
  loadingText: string
  emptyText: string
  moreLabel: string
  children: ComponentChildren
}) => (
  <>
    <Alert>{list.error}</Alert>
    {!list.loaded ? <p role="status">{loadingText}</p> : null}
    {list.loaded && list.items.length === 0 && !list.error ? <p>{emptyText}</p> : null}
    {list.items.length > 0 ? children : null}
    {list.next ? (
      <p>
        <button type="button" onClick={list.loadMore} disabled={list.more}>
          {list.more ? 'Loading…' : moreLabel}
        </button>
      </p>
    ) : null}
  </>
)
