import { useEffect, useRef, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import type { WebhookEndpoint, WebhookEndpointBody } from '../../api'
import { useScope } from '../../scope'
import { Alert, can, Facts, PageTitle, Status, useLoad } from '../../ui'
import { Time } from '../../ui-format'
import { useAction } from '../../ui-forms'
import { ConfirmButton, NotFound } from '../../ui-pages'
import { DeliveryLog, WATCH_AFTER_ACTION_MS, type Watch } from './delivery-log'
import { EndpointForm } from './endpoint-form'
import {
  EndpointState,
  KINDS,
  KindList,
  OVERLAP_HOURS,
  type Revealed,
  SecretReveal,
} from './webhook-parts'

/** What is known of the endpoint: its state, its last outcome, its kinds, its secret's age. */
const EndpointFacts = ({ endpoint }: { endpoint: WebhookEndpoint }) => (
  <Facts
    facts={[
      ['State', <EndpointState endpoint={endpoint} failing={false} />],
      [
        'Last success',
        endpoint.lastSuccessAt ? <Time iso={endpoint.lastSuccessAt} seconds /> : 'Never',
      ],
      [
        'Failing since',
        endpoint.failingSince ? <Time iso={endpoint.failingSince} seconds /> : '—',
        endpoint.failingSince ? 'failure' : undefined,
      ],
      ['Event kinds', <KindList kinds={endpoint.kinds} />],
      [
        'Signing secret',
        <>
          {endpoint.secretRotatedAt ? (
            <>
              Rotated <Time iso={endpoint.secretRotatedAt} />
            </>
          ) : (
            <>
              Made <Time iso={endpoint.createdAt} />
            </>
          )}
          {endpoint.previousSecretExpiresAt &&
          Date.parse(endpoint.previousSecretExpiresAt) > Date.now() ? (
            <div class="hint">
              The old one signs too until <Time iso={endpoint.previousSecretExpiresAt} />
            </div>
          ) : null}
        </>,
      ],
      ['Endpoint id', <code>{endpoint.endpointId}</code>],
    ]}
  />
)

/** Test, change, enable or disable, rotate, delete: owners' and admins' buttons. */
const EndpointActions = ({
  endpoint,
  action,
  act,
  onClear,
  onTested,
  onChanged,
  onEdit,
  onRotated,
  onDeleted,
}: {
  endpoint: WebhookEndpoint
  action: ReturnType<typeof useAction>
  /** Runs an action after clearing the page's message. */
  act: (work: () => Promise<unknown>) => void
  /** Clears the page's message (as a confirmed action starts). */
  onClear: () => void
  onTested: (messageId: string) => void
  onChanged: (answer: WebhookEndpoint, text: string) => void
  onEdit: () => void
  onRotated: (revealed: Revealed) => void
  onDeleted: () => void
}) => {
  const { api } = useScope()
  return (
    <div class="actions endpoint-actions">
      <button
        type="button"
        class="primary"
        disabled={action.busy || !endpoint.enabled}
        onClick={() =>
          act(async () => {
            const answer = await api.sendTestWebhook(endpoint.endpointId)
            onTested(answer.messageId)
          })
        }
      >
        Send test event
      </button>
      <button
        type="button"
        onClick={() => {
          action.setError('')
          onEdit()
        }}
      >
        Change
      </button>
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          act(async () => {
            const answer = await api.changeWebhookEndpoint(endpoint.endpointId, {
              enabled: !endpoint.enabled,
            })
            onChanged(
              answer,
              answer.enabled
                ? 'The endpoint is enabled: new events are sent to it again.'
                : 'The endpoint is disabled: no events are sent to it until it is enabled again.',
            )
          })
        }
      >
        {endpoint.enabled ? 'Disable' : 'Enable'}
      </button>
      <ConfirmButton
        label="Rotate secret"
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onAsk={() => action.setError('')}
        onConfirm={async () => {
          onClear()
          const { secret, ...answer } = await api.rotateWebhookSecret(endpoint.endpointId)
          onRotated({ endpoint: answer, secret, rotated: true })
        }}
      >
        <p>
          A new secret is made now and shown once. The old secret keeps signing alongside it for{' '}
          {OVERLAP_HOURS} hours (each delivery carries both signatures), so the receiver can move to
          the new one without missing a delivery.
        </p>
      </ConfirmButton>
      <ConfirmButton
        label="Delete"
        buttonClass="danger-outline"
        title={`Delete the endpoint ${endpoint.url}?`}
        confirmLabel="Delete endpoint"
        danger
        onAsk={() => action.setError('')}
        onConfirm={async () => {
          onClear()
          await api.deleteWebhookEndpoint(endpoint.endpointId)
          onDeleted()
        }}
      >
        <p>
          No more events are sent to it, and messages waiting for a retry are dropped. Its delivery
          log goes with it. This cannot be undone: to pause deliveries, disable it instead.
        </p>
      </ConfirmButton>
    </div>
  )
}

/** The endpoint's form, filled in; only what changed is sent. */
const ChangeEndpoint = ({
  endpoint,
  onSaved,
  onCancel,
}: {
  endpoint: WebhookEndpoint
  onSaved: (answer: WebhookEndpoint) => void
  onCancel: () => void
}) => {
  const { api } = useScope()
  return (
    <section class="panel" aria-labelledby="change-endpoint">
      <h2 id="change-endpoint">Change the endpoint</h2>
      <EndpointForm
        mode={endpoint.mode}
        initial={{
          url: endpoint.url,
          description: endpoint.description ?? '',
          kinds: KINDS.filter((k) => endpoint.kinds.includes(k)),
        }}
        submitLabel="Save endpoint"
        onSubmit={async (values) => {
          const body: WebhookEndpointBody = {}
          if (values.url !== endpoint.url) body.url = values.url
          if (values.description !== (endpoint.description ?? ''))
            body.description = values.description
          if (values.kinds.join() !== endpoint.kinds.join()) body.kinds = values.kinds
          const answer =
            Object.keys(body).length === 0
              ? endpoint
              : await api.changeWebhookEndpoint(endpoint.endpointId, body)
          onSaved(answer)
        }}
      >
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </EndpointForm>
    </section>
  )
}

/** One endpoint: its facts, its actions (owners and admins), its delivery log. */
export const WebhookEndpointPage = ({ endpointId }: { endpointId: string }) => {
  const scope = useScope()
  const { api, role } = scope
  const { route } = useLocation()
  const admin = can(role, 'admin')
  const [message, setMessage] = useState('')
  const [revealed, setRevealed] = useState<Revealed>()
  const [editing, setEditing] = useState(false)
  const [deleted, setDeleted] = useState(false)
  const [watch, setWatch] = useState<Watch>()
  const [version, setVersion] = useState(0)
  const [fresh, setFresh] = useState<WebhookEndpoint>()
  const action = useAction()
  const { data, error: loadError } = useLoad(async () => {
    const found = await api.webhookEndpoint(endpointId)
    // An endpoint's address in the other mode: its own mode's.
    if (found.mode !== scope.mode) route(scope.at(`webhooks/${found.endpointId}`, found.mode), true)
    return found
  }, [api, endpointId, version])
  // What the last action answered, until the endpoint is read again.
  const endpoint = fresh ?? data
  // Once deleted, nothing reads the endpoint again (a read the log's last move scheduled would
  // answer 404).
  const gone = useRef(false)
  const reloadEndpoint = () => {
    if (gone.current) return
    setFresh(undefined)
    setVersion((v) => v + 1)
  }
  // The sender records an attempt, then the endpoint's outcome (last success, failing since): read
  // the endpoint when the log moves, and once more a moment later for the outcome.
  const later = useRef<number | undefined>(undefined)
  useEffect(() => () => window.clearTimeout(later.current), [])
  const logMoved = () => {
    reloadEndpoint()
    window.clearTimeout(later.current)
    later.current = window.setTimeout(reloadEndpoint, 2_000)
  }

  const act = (work: () => Promise<unknown>) => {
    setMessage('')
    void action.run(work)
  }
  const changed = (answer: WebhookEndpoint, text: string) => {
    setFresh(answer)
    setMessage(text)
  }

  if (deleted) {
    return (
      <>
        <PageTitle title="Endpoint deleted">Endpoint deleted</PageTitle>
        <Status>
          The endpoint {endpoint?.url ?? endpointId} is deleted: no more events are sent to it.
        </Status>
        <p>
          <a href={scope.at('webhooks')}>Back to the webhooks</a>
        </p>
      </>
    )
  }
  if (loadError && !endpoint) {
    return (
      <NotFound
        title="Endpoint not found"
        error={loadError}
        back={scope.at('webhooks')}
        backText="Back to the webhooks"
      />
    )
  }
  if (!endpoint) return <p role="status">Loading the endpoint…</p>

  return (
    <>
      <p class="crumbs">
        <a href={scope.at('webhooks')}>Webhooks</a> ›
      </p>
      <PageTitle title={`Webhook endpoint ${endpoint.url}`}>
        Endpoint <bdi class="url">{endpoint.url}</bdi>
      </PageTitle>
      {endpoint.description ? (
        <p class="description">
          <bdi>{endpoint.description}</bdi>
        </p>
      ) : null}
      {message ? <Status>{message}</Status> : null}
      {revealed ? <SecretReveal revealed={revealed} onDone={() => setRevealed(undefined)} /> : null}
      <EndpointFacts endpoint={endpoint} />
      {admin && !editing ? (
        <EndpointActions
          endpoint={endpoint}
          action={action}
          act={act}
          onTested={(messageId) => {
            setWatch({ until: Date.now() + WATCH_AFTER_ACTION_MS, messageId })
            setMessage(
              `A test event is on its way (message ${messageId}): its attempts show in the delivery log below.`,
            )
          }}
          onChanged={changed}
          onEdit={() => setEditing(true)}
          onClear={() => setMessage('')}
          onRotated={(shown) => {
            setFresh(shown.endpoint)
            setRevealed(shown)
          }}
          onDeleted={() => {
            gone.current = true
            window.clearTimeout(later.current)
            setDeleted(true)
          }}
        />
      ) : null}
      {!endpoint.enabled && admin ? (
        <p class="hint">Enable the endpoint to send it a test event.</p>
      ) : null}
      <Alert>{!editing && action.error}</Alert>
      {admin && editing ? (
        <ChangeEndpoint
          endpoint={endpoint}
          onSaved={(answer) => {
            setEditing(false)
            changed(answer, 'The endpoint is saved.')
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      <DeliveryLog
        endpointId={endpoint.endpointId}
        admin={admin}
        watch={watch}
        onWatch={(w, text) => {
          setWatch(w)
          setMessage(text)
        }}
        onMoved={logMoved}
      />
    </>
  )
}
