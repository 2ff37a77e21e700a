import { useState } from 'preact/hooks'
import { getJson, issuerPath, type Member, type Role, sendJson } from '../api'
import { useScope } from '../scope'
import {
  Alert,
  ConfirmDialog,
  can,
  Field,
  fieldErrorsOf,
  inputValue,
  PageTitle,
  ROLE_ORDER,
  Status,
  Time,
  useLoad,
} from '../ui'

/** The issuer's people and pending invitations; owners invite, change roles, remove, resend. */

const ROLE_TEXT: Record<Role, string> = {
  viewer: 'reads everything: programs, keys (never a secret), grants, the team, the audit log',
  admin: 'also creates, pauses and closes programs, creates, rolls and revokes keys, sends grants',
  owner: 'also invites people, changes roles, removes members and resends invitations',
}

const MemberRow = ({
  member,
  isMe,
  owner,
  onDone,
}: {
  member: Member
  isMe: boolean
  owner: boolean
  onDone: (message: string) => void
}) => {
  const { issuerId, issuerName } = useScope()
  const [role, setRole] = useState<Role>(member.role)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>()
  const [confirmRemove, setConfirmRemove] = useState(false)
  const path = `${issuerPath(issuerId)}/members/${member.memberId}`

  const act = async (work: () => Promise<string>) => {
    setBusy(true)
    setError(undefined)
    try {
      onDone(await work())
      setConfirmRemove(false)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  return (
    <tr>
      <th scope="row" class="text">
        {member.email}
        {isMe ? ' (you)' : ''}
      </th>
      <td>
        {owner ? (
          <span class="row-actions">
            <select
              aria-label={`Role of ${member.email}`}
              value={role}
              onChange={(e) => setRole(inputValue(e) as Role)}
              disabled={busy}
            >
              {ROLE_ORDER.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            {role !== member.role ? (
              <button
                type="button"
                onClick={() =>
                  act(async () => {
                    await sendJson('PATCH', path, { role })
                    return `${member.email} is now ${role}.`
                  })
                }
                disabled={busy}
              >
                Save role
              </button>
            ) : null}
          </span>
        ) : (
          member.role
        )}
      </td>
      <td>{member.status === 'active' ? 'Active' : 'Invitation pending'}</td>
      <td>{member.invitedBy}</td>
      <td>
        <Time iso={member.createdAt} />
      </td>
      {owner ? (
        <td>
          <span class="row-actions">
            {member.status === 'invited' ? (
              <button
                type="button"
                aria-label={`Resend invitation to ${member.email}`}
                onClick={() =>
                  act(async () => {
                    await sendJson('POST', `${path}/resend`)
                    return `The invitation is on its way to ${member.email} again.`
                  })
                }
                disabled={busy}
              >
                Resend invitation
              </button>
            ) : null}
            <button
              type="button"
              class="danger-outline"
              aria-label={`${member.status === 'invited' ? 'Withdraw' : 'Remove'} ${member.email}`}
              onClick={() => {
                setError(undefined)
                setConfirmRemove(true)
              }}
              disabled={busy}
            >
              {member.status === 'invited' ? 'Withdraw' : 'Remove'}
            </button>
          </span>
          {error && !confirmRemove ? <Alert>{(error as Error).message}</Alert> : null}
          <ConfirmDialog
            open={confirmRemove}
            title={`Remove ${member.email}?`}
            confirmLabel={member.status === 'invited' ? 'Withdraw invitation' : 'Remove member'}
            danger
            busy={busy}
            error={confirmRemove ? error : undefined}
            onConfirm={() =>
              act(async () => {
                await sendJson('DELETE', path)
                return `${member.email} no longer has access to ${issuerName}.`
              })
            }
            onClose={() => setConfirmRemove(false)}
          >
            <p>
              {isMe
                ? `You will lose access to ${issuerName} on your next request.`
                : `${member.email} loses access to ${issuerName} on their next request.`}{' '}
              Their account stays (it may belong to other issuers); invite them again to give access
              back.
            </p>
          </ConfirmDialog>
        </td>
      ) : null}
    </tr>
  )
}

const Invite = ({ onInvited }: { onInvited: (member: Member) => void }) => {
  const { issuerId } = useScope()
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<Role>('viewer')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [formError, setFormError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) {
      setErrors({ email: 'Enter a valid e-mail address.' })
      return
    }
    setErrors({})
    setBusy(true)
    try {
      const member = await sendJson<Member>('POST', `${issuerPath(issuerId)}/members`, {
        email: email.trim(),
        role,
      })
      setEmail('')
      onInvited(member)
    } catch (e) {
      const fields = fieldErrorsOf(e)
      setErrors(fields)
      if (Object.keys(fields).length === 0) setFormError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <section class="panel" aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      <form onSubmit={submit} noValidate>
        <div class="form-row">
          <Field
            label="E-mail address"
            hint="They get an e-mail with a temporary password, valid for 7 days."
            error={errors.email}
          >
            {(props) => (
              <input
                {...props}
                type="email"
                value={email}
                onInput={(e) => setEmail(inputValue(e))}
                required
              />
            )}
          </Field>
          <Field label="Role" hint={ROLE_TEXT[role]} error={errors.role}>
            {(props) => (
              <select {...props} value={role} onChange={(e) => setRole(inputValue(e) as Role)}>
                {ROLE_ORDER.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <Alert>{formError}</Alert>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Send invitation
          </button>
        </div>
      </form>
    </section>
  )
}

export const TeamPage = () => {
  const scope = useScope()
  const owner = can(scope.role, 'owner')
  const [message, setMessage] = useState('')
  const { data, error, loading, reload } = useLoad(
    () =>
      getJson<{ members: Member[] }>(`${issuerPath(scope.issuerId)}/members`).then(
        (r) => r.members,
      ),
    [scope.issuerId],
  )
  const members = data ?? []
  const owners = members.filter((m) => m.role === 'owner')
  const done = (text: string) => {
    setMessage(text)
    void reload()
  }
  return (
    <>
      <PageTitle title="Team">Team</PageTitle>
      <p class="lede">The people of {scope.issuerName} and their roles.</p>
      {message ? <Status>{message}</Status> : null}
      {error ? <Alert>{(error as Error).message}</Alert> : null}
      <div class="table-box">
        <table>
          <caption>Members and pending invitations</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Invited by</th>
              <th scope="col">Since</th>
              {owner ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <MemberRow
                key={`${member.memberId}-${member.role}`}
                member={member}
                isMe={member.email === scope.email}
                owner={owner}
                onDone={done}
              />
            ))}
          </tbody>
        </table>
      </div>
      {loading && !data ? <p role="status">Loading the team…</p> : null}
      {owners.length === 1 ? (
        <p class="note">
          <strong>{owners[0]?.email}</strong> is the only owner. An issuer always keeps at least one
          owner: make another member owner before changing this one's role or removing them.
        </p>
      ) : null}
      {owner ? (
        <Invite
          onInvited={(member) =>
            done(
              // The same answer for every address (an issuer does not learn who has an account):
              // the invitation is pending until the person signs in.
              `Invitation sent to ${member.email} as ${member.role}. It shows as active once they sign in.`,
            )
          }
        />
      ) : null}
      <section aria-labelledby="roles">
        <h2 id="roles">Roles</h2>
        <dl class="roles">
          {ROLE_ORDER.map((r) => (
            <div key={r}>
              <dt>{r}</dt>
              <dd>{ROLE_TEXT[r]}</dd>
            </div>
          ))}
        </dl>
      </section>
    </>
  )
}
