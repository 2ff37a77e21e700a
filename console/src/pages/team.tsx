import { useState } from 'preact/hooks'
import { looksLikeEmail } from '../../../functions/domain/recipient-fields'
import type { Member, Role } from '../api'
import { useScope } from '../scope'
import {
  ActOn,
  Alert,
  ConfirmDialog,
  can,
  DataTable,
  PageTitle,
  ROLES,
  Status,
  usePageData,
} from '../ui'
import { Time } from '../ui-format'
import { FormPanel, inputValue, SelectField, TextField, useAction, useFields } from '../ui-forms'

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
  const { api, issuerName } = useScope()
  const [role, setRole] = useState<Role>(member.role)
  const { busy, error, run, setError } = useAction()
  const [confirmRemove, setConfirmRemove] = useState(false)

  const act = (work: () => Promise<string>) =>
    run(async () => {
      onDone(await work())
      setConfirmRemove(false)
    })

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
              {ROLES.map((r) => (
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
                    await api.changeRole(member.memberId, role)
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
              <ActOn
                label="Resend invitation"
                of={`to ${member.email}`}
                onClick={() =>
                  act(async () => {
                    await api.resendInvitation(member.memberId)
                    return `The invitation is on its way to ${member.email} again.`
                  })
                }
                disabled={busy}
              />
            ) : null}
            <ActOn
              label={member.status === 'invited' ? 'Withdraw' : 'Remove'}
              of={member.email}
              danger
              onClick={() => {
                setError('')
                setConfirmRemove(true)
              }}
              disabled={busy}
            />
          </span>
          <Alert>{!confirmRemove && error}</Alert>
          <ConfirmDialog
            open={confirmRemove}
            title={`Remove ${member.email}?`}
            confirmLabel={member.status === 'invited' ? 'Withdraw invitation' : 'Remove member'}
            danger
            busy={busy}
            error={confirmRemove && error}
            onConfirm={() =>
              act(async () => {
                await api.removeMember(member.memberId)
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
  const { api } = useScope()
  const [role, setRole] = useState<Role>('viewer')
  const action = useAction()
  const { errors, run } = action
  const { values, reset, bind } = useFields({ email: '' }, errors)

  const submit = (event: Event) => {
    event.preventDefault()
    void run(
      async () => {
        const member = await api.invite({ email: values.email.trim(), role })
        reset()
        onInvited(member)
      },
      looksLikeEmail(values.email) ? {} : { email: 'Enter a valid e-mail address.' },
    )
  }

  return (
    <FormPanel title="Invite someone" label="Send invitation" action={action} onSubmit={submit}>
      <div class="form-row">
        <TextField
          label="E-mail address"
          hint="They get an e-mail with a temporary password, valid for 7 days."
          type="email"
          {...bind('email')}
          required
        />
        <SelectField
          label="Role"
          hint={ROLE_TEXT[role]}
          error={errors.role}
          value={role}
          onValue={setRole}
          options={ROLES}
        />
      </div>
    </FormPanel>
  )
}

export const TeamPage = () => {
  const scope = useScope()
  const owner = can(scope.role, 'owner')
  const { data, error, loading, message, done } = usePageData(
    () => scope.api.members(),
    [scope.api],
  )
  const members = data ?? []
  const owners = members.filter((m) => m.role === 'owner')
  return (
    <>
      <PageTitle title="Team">Team</PageTitle>
      <p class="lede">The people of {scope.issuerName} and their roles.</p>
      {message ? <Status>{message}</Status> : null}
      <Alert>{error}</Alert>
      <DataTable
        caption="Members and pending invitations"
        columns={['E-mail', 'Role', 'Status', 'Invited by', 'Since', owner && 'Actions']}
      >
        {members.map((member) => (
          <MemberRow
            key={`${member.memberId}-${member.role}`}
            member={member}
            isMe={member.email === scope.email}
            owner={owner}
            onDone={done}
          />
        ))}
      </DataTable>
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
          {ROLES.map((r) => (
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
