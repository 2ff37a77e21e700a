import type { ComponentChildren } from 'preact'
import { useId, useState } from 'preact/hooks'
import type { WebhookEndpoint, WebhookEventKind } from '../../api'
import { type Errors, FormEnd, TextField, useAction } from '../../ui-forms'
import { DESCRIPTION_MAX, explainEndpointError, KIND_MEANINGS, KINDS } from './webhook-parts'

export type EndpointFormValues = { url: string; description: string; kinds: WebhookEventKind[] }

/** The event kinds as checkboxes, their meaning with each; its error under them. */
const KindsField = ({
  value,
  onValue,
  error,
}: {
  value: readonly WebhookEventKind[]
  onValue: (kinds: WebhookEventKind[]) => void
  error?: string | undefined
}) => {
  const id = useId()
  const chosen = new Set(value)
  const toggle = (kind: WebhookEventKind, on: boolean) => {
    const next = new Set(chosen)
    if (on) next.add(kind)
    else next.delete(kind)
    onValue(KINDS.filter((k) => next.has(k)))
  }
  return (
    <fieldset
      class={`field kinds${error ? ' has-error' : ''}`}
      aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
    >
      <legend>Event kinds</legend>
      <div class="hint" id={`${id}-hint`}>
        The events this endpoint receives (at least one). A test event is always allowed.
      </div>
      <ul class="checks">
        {KINDS.map((kind) => (
          <li key={kind}>
            <label class="inline">
              <input
                type="checkbox"
                checked={chosen.has(kind)}
                onChange={(e) => toggle(kind, (e.currentTarget as HTMLInputElement).checked)}
              />{' '}
              <code>{kind}</code> <span class="hint">{KIND_MEANINGS[kind]}</span>
            </label>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" onClick={() => onValue([...KINDS])}>
          Select every kind
        </button>
        <button type="button" onClick={() => onValue([])}>
          Select none
        </button>
      </div>
      {error ? (
        <div class="field-error" id={`${id}-error`}>
          {error}
        </div>
      ) : null}
    </fieldset>
  )
}

/** Add or change an endpoint: its URL, a description, its kinds; messages next to each field. */
export const EndpointForm = ({
  mode,
  initial,
  submitLabel,
  onSubmit,
  children,
}: {
  mode: WebhookEndpoint['mode']
  initial: EndpointFormValues
  submitLabel: string
  onSubmit: (values: EndpointFormValues) => Promise<unknown>
  children?: ComponentChildren
}) => {
  const [form, setForm] = useState(initial)
  const { busy, errors, error, run } = useAction(
    explainEndpointError(['url', 'description', 'kinds']),
  )
  const submit = (event: Event) => {
    event.preventDefault()
    const values = { ...form, url: form.url.trim(), description: form.description.trim() }
    const problems: Errors = {}
    if (values.url === '') problems.url = 'Enter the address the events are sent to.'
    if ([...values.description].length > DESCRIPTION_MAX)
      problems.description = `At most ${DESCRIPTION_MAX} characters.`
    if (values.kinds.length === 0) problems.kinds = 'Choose at least one event kind.'
    void run(() => onSubmit(values), problems)
  }
  return (
    <form onSubmit={submit} noValidate>
      <TextField
        label="Endpoint URL"
        hint={
          mode === 'LIVE'
            ? 'An https:// address on the public internet (LIVE endpoints must use https).'
            : 'An https:// or http:// address (TEST endpoints may use http).'
        }
        error={errors.url}
        type="text"
        spellcheck={false}
        autocomplete="off"
        value={form.url}
        onValue={(url) => setForm({ ...form, url })}
        required
      />
      <TextField
        label="Description (optional)"
        hint={`What receives these events, for your team. At most ${DESCRIPTION_MAX} characters.`}
        error={errors.description}
        value={form.description}
        onValue={(description) => setForm({ ...form, description })}
      />
      <KindsField
        value={form.kinds}
        onValue={(kinds) => setForm({ ...form, kinds })}
        error={errors.kinds}
      />
      <FormEnd error={error} busy={busy} label={submitLabel}>
        {children}
      </FormEnd>
    </form>
  )
}

export const ALL_KINDS: EndpointFormValues = { url: '', description: '', kinds: [...KINDS] }
