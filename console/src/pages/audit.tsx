import type { AuditEntry } from '../api'
import { useScope } from '../scope'
import { Alert, DataTable, Pager, PageTitle, useLoad, usePager } from '../ui'
import { Time } from '../ui-format'

/** The issuer's audit log, newest first, a page at a time. */

const ACTIONS: Record<string, string> = {
  'issuer.create': 'Created the issuer',
  'program.create': 'Created a program',
  'program.pause': 'Paused a program',
  'program.resume': 'Resumed a program',
  'program.close': 'Closed a program',
  'key.create': 'Created an API key',
  'key.roll': 'Rolled an API key',
  'key.revoke': 'Revoked an API key',
  'key.rate_limit': "Changed an API key's rate limit",
  'member.invite': 'Invited a member',
  'member.role': 'Changed a role',
  'member.remove': 'Removed a member',
  'member.resend': 'Resent an invitation',
  'grant.send': 'Sent a grant',
  'batch.commit': 'Sent a batch',
  'batch.finish': 'A batch finished',
}

const actorText = (actor: AuditEntry['actor']) =>
  actor.kind === 'person' ? actor.email : actor.label

export const AuditPage = () => {
  const { api, issuerName } = useScope()
  const pager = usePager()
  const { data, error, loading } = useLoad(
    () => api.audit({ cursor: pager.cursor }),
    [api, pager.cursor],
  )
  const entries = data?.entries ?? []
  return (
    <>
      <PageTitle title="Audit log">Audit log</PageTitle>
      <p class="lede">
        Every change to {issuerName}, by whom and when, written in the same transaction as the
        change. Entries are never changed or deleted.
      </p>
      <Alert>{error}</Alert>
      <DataTable
        caption="Audit log, newest first"
        columns={['When', 'Who', 'What', 'Target', 'Details']}
      >
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>
              <Time iso={entry.at} />
            </td>
            <td class="text">{actorText(entry.actor)}</td>
            <td>
              {ACTIONS[entry.action] ?? entry.action} <code class="hint">{entry.action}</code>
            </td>
            <td>
              {entry.target.type} <code>{entry.target.id}</code>
            </td>
            <td class="text">
              {Object.entries(entry.details)
                .map(([k, v]) => `${k}: ${v}`)
                .join(', ')}
            </td>
          </tr>
        ))}
      </DataTable>
      {loading && !data ? <p role="status">Loading the audit log…</p> : null}
      {!loading && entries.length === 0 ? <p>No entries yet.</p> : null}
      <Pager label="Audit log pages" pager={pager} nextCursor={data?.nextCursor} />
    </>
  )
}
