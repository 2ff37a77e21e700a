import { useEffect, useRef, useState } from 'preact/hooks'
import {
  dateOfBirthProblem,
  ISO_COUNTRIES,
  nameProblem,
  OLDEST_BIRTH_DATE,
  RECIPIENT_NAME_MAX,
} from '../../../functions/domain/recipient-fields'
import type { Problem, RecipientGrant } from './offer-api'

/**
 * The steps of an open grant on the recipient's page: confirm who you are (reserved), the Terms
 * and accept (offered), and decline (either). The card (grant-card.tsx) runs each step and holds
 * what they share: the errors, the busy flag, a refusal that is no field's.
 */

export type Errors = Record<string, string>

export const LABELS: Record<string, string> = {
  name: 'Your full name',
  dateOfBirth: 'Date of birth',
  country: 'Country where you live',
  termsVersion: 'The Terms',
  terms: 'The Terms',
}

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

/**
 * What a card does with its grant, whichever page it is on: the offer page sends the link's token
 * with each step, the holdings page its session. Each step resolves once the page shows the
 * grant as it now is; a refusal is thrown as a Problem.
 */
export type GrantActions = {
  identify: (body: {
    grantId: string
    name: string
    dateOfBirth?: string
    country?: string
  }) => Promise<void>
  accept: (body: { grantId: string; termsVersion: number }) => Promise<void>
  decline: (body: { grantId: string }) => Promise<void>
  /** Reads the grants again and shows them (the Terms changed, or the grant moved meanwhile). */
  reload: () => Promise<void>
  /** Whether a refusal means the credential is gone (the link, the session): then `lost()`. */
  isLost: (problem: Problem) => boolean
  lost: () => void
}

/** What every step gets from its card. */
export type Step = {
  id: string
  grant: RecipientGrant
  actions: GrantActions
  /** The steps' heading, one level under the card's. */
  Heading: 'h3' | 'h4' | 'h5'
  errors: Errors
  busy: boolean
  /** A refusal that is no field's, shown beside the buttons that were pressed. */
  formError: { at: 'form' | 'decline'; text: string } | undefined
  run: (step: () => Promise<void>, at?: 'form' | 'decline') => Promise<void>
  showErrors: (found: Errors) => void
  setErrors: (found: Errors) => void
}

/** A field's aria-describedby (its hint, its error) and its error paragraph. */
const fieldParts = ({ id, errors }: Step) => ({
  described: (field: string, hint?: boolean) =>
    [hint ? `${id}-${field}-hint` : '', errors[field] ? `${id}-${field}-error` : '']
      .filter(Boolean)
      .join(' ') || undefined,
  fieldError: (field: string) =>
    errors[field] ? (
      <p id={`${id}-${field}-error`} class="field-error">
        {errors[field]}
      </p>
    ) : null,
})

const FormError = ({ step, at }: { step: Step; at: 'form' | 'decline' }) =>
  step.formError?.at === at ? (
    <p class="alert" role="alert">
      {step.formError.text}
    </p>
  ) : null

/** Step 1 (reserved): the name, and the date of birth and country where the program asks them. */
export const IdentifyStep = ({ step }: { step: Step }) => {
  const { id, grant, actions, errors, busy, run, showErrors, setErrors } = step
  const { described, fieldError } = fieldParts(step)
  const [name, setName] = useState('')
  const [dateOfBirth, setDateOfBirth] = useState('')
  const [country, setCountry] = useState('')
  const { first, others } = countryOptions(grant.countries)
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
      actions.identify({
        grantId: grant.grantId,
        name: trimmed,
        ...(grant.fields.dateOfBirth ? { dateOfBirth } : {}),
        ...(grant.fields.country ? { country } : {}),
      }),
    )
  }

  return (
    <form noValidate onSubmit={submitIdentify} aria-labelledby={`${id}-step1`}>
      <step.Heading id={`${id}-step1`}>Step 1 of 2: confirm who you are</step.Heading>
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
            min={OLDEST_BIRTH_DATE}
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
      <FormError step={step} at="form" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Confirm my details
        </button>
      </div>
    </form>
  )
}

/** Step 2 (offered): the Terms, their box ticked, then accept. */
export const AcceptStep = ({
  step,
  agreed,
  setAgreed,
}: {
  step: Step
  agreed: boolean
  setAgreed: (agreed: boolean) => void
}) => {
  const { id, grant, actions, errors, busy, run, showErrors, setErrors } = step
  const { described, fieldError } = fieldParts(step)
  const termsUrl = safeUrl(grant.terms?.url)
  const submitAccept = (event: Event) => {
    event.preventDefault()
    if (!agreed)
      return showErrors({ terms: 'Tick the box to accept the Terms, or decline the offer.' })
    setErrors({})
    void run(() =>
      actions.accept({ grantId: grant.grantId, termsVersion: grant.terms?.version ?? 0 }),
    )
  }
  return (
    <form noValidate onSubmit={submitAccept} aria-labelledby={`${id}-step2`}>
      <step.Heading id={`${id}-step2`}>Step 2 of 2: the Terms of Virtual Shares</step.Heading>
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
      <FormError step={step} at="form" />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Accept {grant.amount} {grant.amount === 1 ? 'share' : 'shares'}
        </button>
      </div>
    </form>
  )
}

/** Decline (reserved or offered): asked once more, since it cannot be taken back. */
export const DeclineStep = ({
  step,
  confirming,
  setConfirming,
}: {
  step: Step
  confirming: boolean
  setConfirming: (confirming: boolean) => void
}) => {
  const { grant, actions, busy, run } = step
  const confirmBox = useRef<HTMLFieldSetElement>(null)
  useEffect(() => {
    if (confirming) confirmBox.current?.focus()
  }, [confirming])
  return confirming ? (
    <fieldset ref={confirmBox} class="confirm" tabIndex={-1}>
      <legend>Decline this offer?</legend>
      <p>You cannot take it back afterwards.</p>
      <div class="actions">
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => void run(() => actions.decline({ grantId: grant.grantId }), 'decline')}
        >
          Yes, decline
        </button>
        <button type="button" disabled={busy} onClick={() => setConfirming(false)}>
          Keep the offer
        </button>
      </div>
      <FormError step={step} at="decline" />
    </fieldset>
  ) : (
    <div class="actions decline">
      <button type="button" class="danger-outline" onClick={() => setConfirming(true)}>
        Decline this offer
      </button>
    </div>
  )
}
