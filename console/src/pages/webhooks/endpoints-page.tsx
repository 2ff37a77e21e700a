import { useState } from 'preact/hooks'
import { useScope } from '../../scope'
import { Alert, can, DataTable, PageTitle, useLoad } from '../../ui'
import { Time } from '../../ui-format'
import { ALL_KINDS, EndpointForm, type EndpointFormValues } from './endpoint-form'
import { EndpointState, KEEP_DAYS, KindList, type Revealed, SecretReveal } from './webhook-parts'

/** The endpoints of this issuer and mode; owners and admins add them. */
export const WebhooksPage = () => {
  const scope = useScope()
  const { api, mode, role } = scope
  const admin = can(role, 'admin')
  const [revealed, setRevealed] = useState<Revealed>()
  const [formKey, setFormKey] = useState(0)
  const {
    data,
    error: loadError,
    loading,
    reload,
  } = useLoad(() => api.webhookEndpoints(mode), [api, mode])
  const endpoints = data ?? []

  const create = async (values: EndpointFormValues) => {
    const { secret, ...endpoint } = await api.createWebhookEndpoint({
      mode,
      url: values.url,
      kinds: values.kinds,
      ...(values.description ? { description: values.description } : {}),
    })
    setRevealed({ endpoint, secret, rotated: false })
    setFormKey((k) => k + 1)
    void reload()
  }

  return (
    <>
      <PageTitle title={`${mode} webhooks`}>Webhooks</PageTitle>
      <p class="lede">
        Where {scope.issuerName}'s {mode} events are sent: grants offered, accepted, declined or
        expired, batches completed, pools running low. Each delivery is signed with the endpoint's
        secret (the Standard Webhooks scheme), retried for about 3 days while the receiver fails,
        and kept in the endpoint's delivery log for {KEEP_DAYS} days. {mode} events never reach{' '}
        {mode === 'TEST' ? 'LIVE' : 'TEST'} endpoints.
      </p>
      {revealed ? (
        <>
          <SecretReveal revealed={revealed} onDone={() => setRevealed(undefined)} />
          <p>
            <a href={scope.at(`webhooks/${revealed.endpoint.endpointId}`)}>
              Open the new endpoint: send it a test event and see its delivery log
            </a>
          </p>
        </>
      ) : null}
      <Alert>{loadError}</Alert>
      {endpoints.length > 0 ? (
        <DataTable
          caption={<>{mode} webhook endpoints</>}
          columns={['Endpoint', 'Event kinds', 'State', 'Last success']}
        >
          {endpoints.map((endpoint) => (
            <tr key={endpoint.endpointId}>
              <th scope="row" class="text">
                <a href={scope.at(`webhooks/${endpoint.endpointId}`)}>
                  <bdi class="url">{endpoint.url}</bdi>
                </a>
                {endpoint.description ? (
                  <div>
                    <bdi>{endpoint.description}</bdi>
                  </div>
                ) : null}
                <div class="hint">{endpoint.endpointId}</div>
              </th>
              <td class="text">
                <KindList kinds={endpoint.kinds} />
              </td>
              <td class="text">
                <EndpointState endpoint={endpoint} />
              </td>
              <td>{endpoint.lastSuccessAt ? <Time iso={endpoint.lastSuccessAt} /> : 'Never'}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {!loading && !loadError && endpoints.length === 0 ? (
        <p>No {mode} webhook endpoints yet.</p>
      ) : null}
      {admin ? (
        <section class="panel" aria-labelledby="add-endpoint">
          <h2 id="add-endpoint">Add a {mode} endpoint</h2>
          <EndpointForm
            key={formKey}
            mode={mode}
            initial={ALL_KINDS}
            submitLabel="Add endpoint"
            onSubmit={create}
          />
        </section>
      ) : (
        <p class="hint">Owners and admins add, change and test endpoints.</p>
      )}
    </>
  )
}
