import { useState } from 'preact/hooks'
import { isGrantOpen, RESEND_GAP_MS } from '../../../functions/domain/grant-lifecycle'
import { looksLikeEmail } from '../../../functions/domain/recipient-fields'
import type { Grant } from '../api'
import { EMAIL_PROBLEM } from '../grant-rules'
import { useScope } from '../scope'
import {
  ConfirmDialog,
  CopyButton,
  can,
  Facts,
  PageTitle,
  Status,
  StatusBadge,
  useLoad,
} from '../ui'
import { formatNumber, Time } from '../ui-format'
import { explainApiError, TextField, useAction } from '../ui-forms'
import { ConfirmButton, NotFound } from '../ui-pages'

type HistoryLine = Grant['history'][number]

const STATE_TEXT: Record<string, string> = {
  reserved: 'Reserved: the offer is on its way to the recipient',
  offered: 'Offered: the recipient identified and may accept',
  accepted: 'Accepted by the recipient (final)',
  rejected: 'Rejected',
  expired: 'Expired: the offer window passed; the shares went back to the pool',
  canceled: 'Canceled; the shares went back to the pool',
}
const REASON_TEXT: Record<string, string> = {
  declined: 'declined by the recipient',
  ineligible_age: 'the recipient is under the program’s minimum age',
  ineligible_country: 'the recipient lives outside the program’s countries',
}
const DELIVERY_TEXT: Record<string, string> = {
  sent: 'Offer e-mail sent',
  test_inbox: 'Offer e-mail written to the TEST inbox',
  reminded: 'Reminder sent',
  bounced: 'Delivery failed: the e-mail bounced',
  complained: 'Delivery failed: the recipient marked the e-mail as spam',
  failed: 'Delivery failed',
}
const DELIVERY_STATE: Record<string, string> = {
  pending: 'Not sent yet',
  sent: 'Sent',
  test_inbox: 'In the TEST inbox (TEST grants never e-mail anyone)',
  failed: 'Failed',
}

const actorText = (actor: string) =>
  actor.startsWith('person:')
    ? actor.slice('person:'.length)
    : actor.startsWith('key:')
      ? `API key ${actor.slice(4)}`
      : actor === 'recipient'
        ? 'the recipient'
        : actor === 'service'
          ? 'the service'
          : actor === 'simulation'
            ? 'TEST simulation'
            : actor

const lineText = (line: HistoryLine) => {
  if (line.event === 'transition') {
    const state = line.state ?? ''
    return `${state.charAt(0).toUpperCase()}${state.slice(1)}${line.reason ? ` (${REASON_TEXT[line.reason] ?? line.reason})` : ''}`
  }
  if (line.event === 'delivery')
    return DELIVERY_TEXT[line.delivery ?? ''] ?? `Delivery: ${line.delivery}`
  return 'Recipient address corrected; earlier links no longer work'
}

const isFailure = (line: HistoryLine) =>
  line.event === 'delivery' &&
  (line.delivery === 'bounced' || line.delivery === 'complained' || line.delivery === 'failed')

/** The grant's life, oldest first, its creation the first line. */
const Timeline = ({ grant }: { grant: Grant }) => (
  <section aria-labelledby="timeline">
    <h2 id="timeline">Timeline</h2>
    <ol class="timeline">
      <li>
        <Time iso={grant.createdAt} /> <strong>Created</strong> (reserved){' '}
        <span class="hint">
          by{' '}
          {grant.source === 'api'
            ? `API key ${grant.keyId ?? ''}`
            : grant.source === 'batch'
              ? `batch ${grant.batch?.id ?? ''}, row ${grant.batch?.row ?? ''}`
              : (grant.sentBy?.email ?? '')}
        </span>
      </li>
      {grant.history.map((line, i) => (
        <li key={`${line.at}-${i}`} class={isFailure(line) ? 'failure' : undefined}>
          <Time iso={line.at} /> <strong>{lineText(line)}</strong>{' '}
          <span class="hint">by {actorText(line.actor)}</span>
          {line.detail && line.event !== 'address' ? <div class="hint">{line.detail}</div> : null}
        </li>
      ))}
    </ol>
  </section>
)

/** The grant's state, its offer and its e-mail, its recipient and reason. */
const GrantFacts = ({ grant, failed }: { grant: Grant; failed: boolean }) => {
  const { at } = useScope()
  return (
    <Facts
      facts={[
        [
          'State',
          <>
            <StatusBadge status={grant.status} />{' '}
            <span class="hint">
              {STATE_TEXT[grant.status]}
              {grant.rejectionReason ? `: ${REASON_TEXT[grant.rejectionReason]}` : ''}
            </span>
          </>,
        ],
        ['Offer open until', <Time iso={grant.expiresAt} />],
        [
          'Offer e-mail',
          <>
            {DELIVERY_STATE[grant.delivery.state] ?? grant.delivery.state}
            {grant.delivery.sends > 0 ? ` · sent ${grant.delivery.sends}×` : ''}
            {grant.delivery.lastSentAt ? (
              <>
                {' '}
                · last <Time iso={grant.delivery.lastSentAt} />
              </>
            ) : null}
          </>,
          failed ? 'failure' : undefined,
        ],
        [
          'Recipient',
          <>
            {grant.recipient.email}
            {grant.recipient.name ? (
              <>
                {' '}
                (<bdi>{grant.recipient.name}</bdi>)
              </>
            ) : null}
          </>,
        ],
        ['Reason', <bdi>{grant.reason}</bdi>],
        ['Mode', <span class={`badge badge-${grant.mode.toLowerCase()}`}>{grant.mode}</span>],
        grant.acceptance
          ? [
              'Accepted',
              <>
                <Time iso={grant.acceptance.at} /> · terms version {grant.acceptance.termsVersion}
              </>,
            ]
          : null,
        [
          'Grant id',
          <>
            <code>{grant.id}</code> <CopyButton text={grant.id} label="Copy grant id" />
          </>,
        ],
        // The grant API request that made it, in the request log (issue 33).
        grant.requestId
          ? ['Made by request', <a href={at(`logs/${grant.requestId}`)}>{grant.requestId}</a>]
          : null,
      ]}
    />
  )
}

/** Resend, correct the address, cancel: what owners and admins may do to an open grant. */
const GrantActions = ({
  grant,
  onDone,
  onCorrect,
}: {
  grant: Grant
  onDone: (text: string) => void
  onCorrect: () => void
}) => {
  const { api } = useScope()
  return (
    <div class="actions">
      <ConfirmButton
        label="Resend offer"
        title="Resend the offer?"
        confirmLabel="Resend offer"
        onConfirm={async () => {
          await api.resendOffer(grant.id)
          onDone(`The offer is on its way to ${grant.recipient.email} again.`)
        }}
      >
        <p>
          {grant.recipient.email} gets the offer e-mail again, with a new link. At most once every{' '}
          {RESEND_GAP_MS / 60_000} minutes.
        </p>
      </ConfirmButton>
      <button type="button" onClick={onCorrect}>
        Correct e-mail
      </button>
      <ConfirmButton
        label="Cancel grant"
        buttonClass="danger"
        title="Cancel this grant?"
        confirmLabel="Cancel grant"
        danger
        onConfirm={async () => {
          await api.cancelGrant(grant.id)
          onDone(`Grant canceled: ${formatNumber(grant.amount)} shares went back to the pool.`)
        }}
      >
        <p>
          The recipient can no longer accept it, and its {formatNumber(grant.amount)} shares go back
          to the program’s pool. This cannot be undone.
        </p>
      </ConfirmButton>
    </div>
  )
}

export const GrantPage = ({ grantId }: { grantId: string }) => {
  const scope = useScope()
  const [message, setMessage] = useState('')
  const [version, setVersion] = useState(0)
  const [correcting, setCorrecting] = useState(false)
  const [email, setEmail] = useState('')
  const {
    data: grant,
    error,
    reload,
  } = useLoad(() => scope.api.grant(grantId), [scope.api, grantId, version])
  const action = useAction((e) => explainApiError(e))

  if (error) {
    return <NotFound title="Grant not found" error={error} />
  }
  if (!grant) return <p role="status">Loading the grant…</p>

  const open = isGrantOpen(grant.status)
  const admin = can(scope.role, 'admin')
  const close = () => {
    setCorrecting(false)
    action.setError('')
    action.setErrors({})
  }
  const done = (text: string) => {
    setCorrecting(false)
    setMessage(text)
    setVersion((v) => v + 1)
  }
  const failed = grant.delivery.state === 'failed'

  return (
    <>
      <p class="crumbs">
        <a href={scope.at('programs')}>Programs</a> ›{' '}
        <a href={scope.at(`programs/${grant.programId}`)}>Program</a> ›
      </p>
      <PageTitle title={`Grant ${grant.id}`}>
        Grant of {formatNumber(grant.amount)} share{grant.amount === 1 ? '' : 's'} to{' '}
        {grant.recipient.email}
      </PageTitle>
      {message ? <Status>{message}</Status> : null}
      {failed ? (
        <div class="alert" role="alert">
          The offer e-mail could not be delivered to {grant.recipient.email}. Correct the address
          {open ? ', or resend the offer' : ''}.
        </div>
      ) : null}
      <GrantFacts grant={grant} failed={failed} />
      {admin && open ? (
        <GrantActions
          grant={grant}
          onDone={done}
          onCorrect={() => {
            setEmail(grant.recipient.email)
            setCorrecting(true)
          }}
        />
      ) : null}
      <Timeline grant={grant} />
      {/* A form more than a confirmation: the new address, its error next to it. */}
      <ConfirmDialog
        open={correcting}
        title="Correct the recipient’s e-mail"
        confirmLabel="Correct and resend"
        busy={action.busy}
        error={undefined}
        onClose={close}
        onConfirm={() =>
          action.run(
            async () => {
              const changed = await scope.api.correctEmail(grant.id, email.trim())
              done(`The offer goes to ${changed.recipient.email}; earlier links no longer work.`)
            },
            looksLikeEmail(email) ? {} : { email: EMAIL_PROBLEM },
          )
        }
      >
        <TextField
          label="New e-mail address"
          hint="The offer is sent there; links sent to the old address stop working."
          // Not type=email: the dialog's form would stop on the browser's own bubble, and the
          // message belongs next to the field, in the service's words.
          autocomplete="off"
          error={action.errors.email ?? (action.error || undefined)}
          value={email}
          onValue={setEmail}
        />
      </ConfirmDialog>
      <p>
        <button type="button" onClick={() => void reload()}>
          Refresh
        </button>
      </p>
    </>
  )
}
