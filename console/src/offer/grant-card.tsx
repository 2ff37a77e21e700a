import { useEffect, useRef, useState } from 'preact/hooks'
import { isGrantOpen } from '../../../functions/domain/grant-lifecycle'
import {
  AcceptStep,
  DeclineStep,
  type Errors,
  type GrantActions,
  IdentifyStep,
  LABELS,
  type Step,
} from './grant-steps'
import { Problem, problemText, type RecipientGrant } from './offer-api'

/**
 * One grant on the recipient's page: what it is, then the step it is at. Open (reserved): the
 * person confirms who they are, with the fields the program's rules need. Offered: the Terms,
 * then accept or decline. Final: what happened. Every answer the API refuses is shown next to its
 * field, or above the buttons; after each step the focus goes to the grant's new status.
 */

/**
 * The API's `name must be ...` as `Your full name must be ...`; a message without the field's
 * name (`is required by this program`) gets the label in front.
 */
const fieldMessage = (field: string, message: string) => {
  const label = LABELS[field]
  if (!label) return message
  const rest = message.startsWith(`${field} `) ? message.slice(field.length + 1) : message
  return `${label} ${rest}${/[.!?]$/.test(rest) ? '' : '.'}`
}

const dateTime = (iso: string | undefined) =>
  iso === undefined
    ? ''
    : new Date(iso).toLocaleString(undefined, { dateStyle: 'long', timeStyle: 'short' })

const outcomeText = (grant: RecipientGrant) => {
  const shares = `${grant.amount} ${grant.amount === 1 ? 'share' : 'shares'}`
  switch (grant.state) {
    case 'accepted':
      return {
        title: 'Accepted',
        text: `You accepted ${shares}${grant.acceptedAt ? ` on ${dateTime(grant.acceptedAt)}` : ''}. Nothing more to do.`,
        tone: 'status',
      }
    case 'rejected':
      if (grant.rejectionReason === 'ineligible_age')
        return {
          title: 'Not eligible',
          text: 'This offer could not be accepted: the program has a minimum age, and the date of birth you gave does not meet it.',
          tone: 'alert',
        }
      if (grant.rejectionReason === 'ineligible_country')
        return {
          title: 'Not eligible',
          text: 'This offer could not be accepted: the program is not open to people living in the country you gave.',
          tone: 'alert',
        }
      return { title: 'Declined', text: 'You declined this offer.', tone: 'note' }
    case 'expired':
      return {
        title: 'Expired',
        text: `This offer expired on ${dateTime(grant.expiresAt)} and can no longer be accepted.`,
        tone: 'note',
      }
    case 'canceled':
      return { title: 'Withdrawn', text: 'The issuer withdrew this offer.', tone: 'note' }
    default:
      return undefined
  }
}

export const GrantCard = ({
  grant,
  actions,
  heading = 2,
  title = grant.programName,
}: {
  grant: RecipientGrant
  actions: GrantActions
  /** The level of the card's heading (the holdings page nests cards under issuer and program). */
  heading?: 2 | 3 | 4
  title?: string
}) => {
  const id = `grant-${grant.grantId}`
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Errors>({})
  // A refusal that is no field's, shown beside the buttons that were pressed.
  const [formError, setFormError] = useState<{ at: 'form' | 'decline'; text: string }>()
  const [confirming, setConfirming] = useState(false)
  const [agreed, setAgreed] = useState(false)
  const status = useRef<HTMLDivElement>(null)
  const firstInvalid = useRef<string | undefined>(undefined)
  const acted = useRef(false)

  // After a step of the person's, the focus goes to where the grant now stands.
  useEffect(() => {
    if (acted.current) status.current?.focus()
    acted.current = false
  }, [grant.state])

  // The first field with an error gets the focus, so its message is read out.
  useEffect(() => {
    if (firstInvalid.current) document.getElementById(`${id}-${firstInvalid.current}`)?.focus()
    firstInvalid.current = undefined
  }, [errors])

  const showErrors = (found: Errors) => {
    firstInvalid.current = Object.keys(found)[0]
    setErrors(found)
  }

  const run = async (step: () => Promise<void>, at: 'form' | 'decline' = 'form') => {
    setBusy(true)
    setFormError(undefined)
    try {
      await step()
      acted.current = true
      setErrors({})
      setConfirming(false)
    } catch (error) {
      if (error instanceof Problem && actions.isLost(error)) return actions.lost()
      if (error instanceof Problem && error.errors.length > 0) {
        const changedTerms = error.errors.some((e) => e.field === 'termsVersion')
        showErrors(
          Object.fromEntries(
            error.errors.map((e) => [
              e.field,
              e.field === 'termsVersion'
                ? 'The Terms changed while this page was open: read the new version above, then tick the box again.'
                : fieldMessage(e.field, e.message),
            ]),
          ),
        )
        // The program's Terms changed while the page was open: show the new ones to accept.
        if (changedTerms) {
          setAgreed(false)
          try {
            await actions.reload()
          } catch {}
        }
      } else if (error instanceof Problem && error.status === 409) {
        // The grant moved meanwhile (expired, withdrawn, already answered): say why, then show it
        // as it is now.
        setFormError({ at, text: error.message })
        try {
          acted.current = true
          await actions.reload()
        } catch {}
      } else {
        setFormError({ at, text: problemText(error) })
      }
    } finally {
      setBusy(false)
    }
  }

  const outcome = outcomeText(grant)
  const open = isGrantOpen(grant.state)
  const Title = `h${heading}` as 'h2' | 'h3' | 'h4'
  const step: Step = {
    id,
    grant,
    actions,
    Heading: `h${heading + 1}` as Step['Heading'],
    errors,
    busy,
    formError,
    run,
    showErrors,
    setErrors,
  }

  return (
    <section class="panel grant" aria-labelledby={`${id}-title`}>
      <Title id={`${id}-title`}>{title}</Title>
      {grant.mode === 'TEST' && (
        <p class="test-note">
          A TEST offer: made in the issuer's TEST mode, for trying the flow. It holds no real
          shares.
        </p>
      )}
      {grant.description && <p class="description">{grant.description}</p>}
      <dl class="facts">
        <dt>Shares</dt>
        <dd>{grant.amount}</dd>
        <dt>Reason</dt>
        <dd>{grant.reason}</dd>
        {(open || grant.state === 'expired') && (
          <>
            <dt>{open ? 'Open until' : 'Expired on'}</dt>
            <dd>{dateTime(grant.expiresAt)}</dd>
          </>
        )}
      </dl>

      <div ref={status} tabIndex={-1} class="grant-status" role="status">
        {outcome && (
          <p class={outcome.tone}>
            <strong>{outcome.title}.</strong> {outcome.text}
          </p>
        )}
        {grant.state === 'offered' && (
          <p class="status">
            <strong>Details confirmed.</strong> Read the Terms, then accept or decline.
          </p>
        )}
      </div>

      {grant.state === 'reserved' && <IdentifyStep step={step} />}
      {grant.state === 'offered' && (
        <AcceptStep step={step} agreed={agreed} setAgreed={setAgreed} />
      )}
      {open && <DeclineStep step={step} confirming={confirming} setConfirming={setConfirming} />}
    </section>
  )
}
