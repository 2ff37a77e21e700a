import { useEffect, useRef, useState } from 'preact/hooks'
import {
  dateOfBirthProblem,
  ISO_COUNTRIES,
  nameProblem,
  RECIPIENT_NAME_MAX,
} from '../../../functions/domain/recipient-fields'
import {
  accept,
  decline,
  identify,
  Problem,
  problemText,
  type RecipientGrant,
  type RecipientView,
  viewOffer,
} from './offer-api'

/**
 * One grant on the recipient's page: what it is, then the step it is at. Open (reserved): the
 * person confirms who they are, with the fields the program's rules need. Offered: the Terms,
 * then accept or decline. Final: what happened. Every answer the API refuses is shown next to its
 * field, or above the buttons; after each step the focus goes to the grant's new status.
 */

type Errors = Record<string, string>

const LABELS: Record<string, string> = {
  name: 'Your full name',
  dateOfBirth: 'Date of birth',
  country: 'Country where you live',
  termsVersion: 'The Terms',
  terms: 'The Terms',
}

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

const regionNames = () => {
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' })
  } catch {
    return undefined
  }
}

/** The program's countries first (by name), then every other one, as the select offers them. */
const countryOptions = (allowed: readonly string[] = []) => {
  const names = regionNames()
  const named = (code: string) => ({ code, name: names?.of(code) ?? code })
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)
  const first = allowed.map(named).sort(byName)
  const others = ISO_COUNTRIES.filter((c) => !allowed.includes(c))
    .map(named)
    .sort(byName)
  return { first, others }
}

const safeUrl = (url: string | undefined) =>
  url !== undefined && /^https?:\/\//i.test(url) ? url : undefined

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
  token,
  onView,
  onInvalid,
}: {
  grant: RecipientGrant
  token: string
  onView: (view: RecipientView) => void
  onInvalid: () => void
}) => {
  const id = `grant-${grant.grantId}`
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Errors>({})
  // A refusal that is no field's, shown beside the buttons that were pressed.
  const [formError, setFormError] = useState<{ at: 'form' | 'decline'; text: string }>()
  const [confirming, setConfirming] = useState(false)
  const [agreed, setAgreed] = useState(false)
  const [name, setName] = useState('')
  const [dateOfBirth, setDateOfBirth] = useState('')
  const [country, setCountry] = useState('')
  const status = useRef<HTMLDivElement>(null)
  const confirmBox = useRef<HTMLFieldSetElement>(null)
  const firstInvalid = useRef<string | undefined>(undefined)
  const acted = useRef(false)

  // After a step of the person's, the focus goes to where the grant now stands.
  useEffect(() => {
    if (acted.current) status.current?.focus()
    acted.current = false
  }, [grant.state])

  useEffect(() => {
    if (confirming) confirmBox.current?.focus()
  }, [confirming])

  // The first field with an error gets the focus, so its message is read out.
  useEffect(() => {
    if (firstInvalid.current) document.getElementById(`${id}-${firstInvalid.current}`)?.focus()
    firstInvalid.current = undefined
  }, [errors])

  const showErrors = (found: Errors) => {
    firstInvalid.current = Object.keys(found)[0]
    setErrors(found)
  }

  const run = async (step: () => Promise<RecipientView>, at: 'form' | 'decline' = 'form') => {
    setBusy(true)
    setFormError(undefined)
    try {
      const view = await step()
      acted.current = true
      setErrors({})
      setConfirming(false)
      onView(view)
    } catch (error) {
      if (error instanceof Problem && error.status === 404) return onInvalid()
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
            onView(await viewOffer(token))
          } catch {}
        }
      } else if (error instanceof Problem && error.status === 409) {
        // The grant moved meanwhile (expired, withdrawn, already answered): say why, then show it
        // as it is now.
        setFormError({ at, text: error.message })
        try {
          const view = await viewOffer(token)
          acted.current = true
          onView(view)
        } catch {}
      } else {
        setFormError({ at, text: problemText(error) })
      }
    } finally {
      setBusy(false)
    }
  }

  const submitIdentify = (event: Event) => {
    event.preventDefault()
    const found: Errors = {}
    const trimmed = name.trim()
    const nameIssue = nameProblem(trimmed)
    if (trimmed === '') found.name = 'Enter your full name.'
    else if (nameIssue) found.name = `${LABELS.name} ${nameIssue}.`
    if (grant.fields.dateOfBirth) {
      const issue = dateOfBirthProblem(dateOfBirth, Date.now())
      if (dateOfBirth === '') found.dateOfBirth = 'Enter your date of birth.'
      else if (issue) found.dateOfBirth = `${LABELS.dateOfBirth} ${issue}.`
    }
    if (grant.fields.country && country === '') found.country = 'Choose the country where you live.'
    if (Object.keys(found).length > 0) return showErrors(found)
    setErrors({})
    void run(() =>
      identify({
        token,
        grantId: grant.grantId,
        name: trimmed,
        ...(grant.fields.dateOfBirth ? { dateOfBirth } : {}),
        ...(grant.fields.country ? { country } : {}),
      }),
    )
  }

  const submitAccept = (event: Event) => {
    event.preventDefault()
    if (!agreed)
      return showErrors({ terms: 'Tick the box to accept the Terms, or decline the offer.' })
    setErrors({})
    void run(() =>
      accept({ token, grantId: grant.grantId, termsVersion: grant.terms?.version ?? 0 }),
    )
  }

  const outcome = outcomeText(grant)
  const open = grant.state === 'reserved' || grant.state === 'offered'
  const described = (field: string, hint?: boolean) =>
    [hint ? `${id}-${field}-hint` : '', errors[field] ? `${id}-${field}-error` : '']
      .filter(Boolean)
      .join(' ') || undefined
  const fieldError = (field: string) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} class="field-error">
        {errors[field]}
      </p>
    ) : null
  const { first, others } = countryOptions(grant.countries)
  const termsUrl = safeUrl(grant.terms?.url)

  return (
    <section class="panel grant" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{grant.programName}</h2>
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

      {grant.state === 'reserved' && (
        <form noValidate onSubmit={submitIdentify} aria-labelledby={`${id}-step1`}>
          <h3 id={`${id}-step1`}>Step 1 of 2: confirm who you are</h3>
          <div class={`field${errors.name ? ' has-error' : ''}`}>
            <label for={`${id}-name`}>{LABELS.name}</label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="name"
              maxLength={RECIPIENT_NAME_MAX}
              required
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              aria-invalid={errors.name ? 'true' : undefined}
              aria-describedby={described('name')}
            />
            {fieldError('name')}
          </div>
          {grant.fields.dateOfBirth && (
            <div class={`field${errors.dateOfBirth ? ' has-error' : ''}`}>
              <label for={`${id}-dateOfBirth`}>{LABELS.dateOfBirth}</label>
              <span id={`${id}-dateOfBirth-hint`} class="hint">
                {grant.minAge === undefined
                  ? "Used only to check the program's minimum age; it is not kept."
                  : `The program is open from the age of ${grant.minAge}. Your date of birth is used only to check this; it is not kept.`}
              </span>
              <input
                id={`${id}-dateOfBirth`}
                name="dateOfBirth"
                type="date"
                autoComplete="bday"
                required
                min="1900-01-01"
                max={new Date().toISOString().slice(0, 10)}
                value={dateOfBirth}
                onInput={(e) => setDateOfBirth(e.currentTarget.value)}
                aria-invalid={errors.dateOfBirth ? 'true' : undefined}
                aria-describedby={described('dateOfBirth', true)}
              />
              {fieldError('dateOfBirth')}
            </div>
          )}
          {grant.fields.country && (
            <div class={`field${errors.country ? ' has-error' : ''}`}>
              <label for={`${id}-country`}>{LABELS.country}</label>
              {first.length > 0 && (
                <span id={`${id}-country-hint`} class="hint">
                  The program is open to people living in {first.map((c) => c.name).join(', ')}.
                </span>
              )}
              <select
                id={`${id}-country`}
                name="country"
                autoComplete="country"
                required
                value={country}
                onChange={(e) => setCountry(e.currentTarget.value)}
                aria-invalid={errors.country ? 'true' : undefined}
                aria-describedby={described('country', first.length > 0)}
              >
                <option value="">Choose a country</option>
                {first.length > 0 && (
                  <optgroup label="Countries of this program">
                    {first.map((c) => (
                      <option key={c.code} value={c.code}>
                        {c.name}
                      </option>
                    ))}
                  </optgroup>
                )}
                <optgroup label={first.length > 0 ? 'Other countries' : 'Countries'}>
                  {others.map((c) => (
                    <option key={c.code} value={c.code}>
                      {c.name}
                    </option>
                  ))}
                </optgroup>
              </select>
              {fieldError('country')}
            </div>
          )}
          {formError?.at === 'form' && (
            <p class="alert" role="alert">
              {formError.text}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Confirm my details
            </button>
          </div>
        </form>
      )}

      {grant.state === 'offered' && (
        <form noValidate onSubmit={submitAccept} aria-labelledby={`${id}-step2`}>
          <h3 id={`${id}-step2`}>Step 2 of 2: the Terms of Virtual Shares</h3>
          {grant.terms ? (
            <>
              <p class="hint">Version {grant.terms.version}</p>
              {grant.terms.text && (
                <section
                  class="terms"
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard (axe: scrollable-region-focusable).
                  tabIndex={0}
                  aria-label={`Terms of Virtual Shares, version ${grant.terms.version}`}
                >
                  {grant.terms.text}
                </section>
              )}
              {termsUrl && (
                <p>
                  <a href={termsUrl} target="_blank" rel="noopener noreferrer">
                    Read the Terms of Virtual Shares, version {grant.terms.version}
                  </a>{' '}
                  (opens in a new tab)
                </p>
              )}
            </>
          ) : (
            <p>This program has no separate Terms: the offer above is all there is to accept.</p>
          )}
          <div class={`field check${errors.terms || errors.termsVersion ? ' has-error' : ''}`}>
            <label class="inline" for={`${id}-terms`}>
              <input
                id={`${id}-terms`}
                type="checkbox"
                checked={agreed}
                onChange={(e) => setAgreed(e.currentTarget.checked)}
                aria-invalid={errors.terms || errors.termsVersion ? 'true' : undefined}
                aria-describedby={described('terms')}
              />{' '}
              {grant.terms
                ? `I have read and accept the Terms of Virtual Shares, version ${grant.terms.version}.`
                : 'I accept this offer.'}
            </label>
            {fieldError('terms')}
            {fieldError('termsVersion')}
          </div>
          {formError?.at === 'form' && (
            <p class="alert" role="alert">
              {formError.text}
            </p>
          )}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Accept {grant.amount} {grant.amount === 1 ? 'share' : 'shares'}
            </button>
          </div>
        </form>
      )}

      {open &&
        (confirming ? (
          <fieldset ref={confirmBox} class="confirm" tabIndex={-1}>
            <legend>Decline this offer?</legend>
            <p>You cannot take it back afterwards.</p>
            <div class="actions">
              <button
                type="button"
                class="danger"
                disabled={busy}
                onClick={() =>
                  void run(() => decline({ token, grantId: grant.grantId }), 'decline')
                }
              >
                Yes, decline
              </button>
              <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
                Keep the offer
              </button>
            </div>
            {formError?.at === 'decline' && (
              <p class="alert" role="alert">
                {formError.text}
              </p>
            )}
          </fieldset>
        ) : (
          <div class="actions decline">
            <button type="button" class="danger-outline" onClick={() => setConfirming(true)}>
              Decline this offer
            </button>
          </div>
        ))}
    </section>
  )
}
