import type { ComponentChildren, RefObject } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { looksLikeEmail } from '../../../functions/domain/recipient-fields'
import { Problem, problemText } from './offer-api'

/**
 * "Send me a new link": the address, and always the same answer (the API's), whether or not an
 * offer for it is open, so the page tells nobody which addresses hold offers. Only a malformed
 * address is refused (next to the field), and too many attempts. `request` asks for the link and
 * answers what to say (the offer page's and the holdings page's routes differ).
 */
export const LinkForm = ({
  label,
  submit: submitLabel,
  request,
}: {
  label: string
  submit: string
  request: (email: string) => Promise<string>
}) => {
  const [email, setEmail] = useState('')
  const [error, setError] = useState<string>()
  const [formError, setFormError] = useState<string>()
  const [answer, setAnswer] = useState<string>()
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const status = useRef<HTMLParagraphElement>(null)

  useEffect(() => {
    if (answer) status.current?.focus()
  }, [answer])

  const refuse = (message: string) => {
    setError(message)
    input.current?.focus()
  }

  const submit = async (event: Event) => {
    event.preventDefault()
    setFormError(undefined)
    setAnswer(undefined)
    if (email.trim() === '') return refuse('Enter your e-mail address.')
    if (!looksLikeEmail(email)) return refuse('Enter an e-mail address such as name@example.com.')
    setError(undefined)
    setBusy(true)
    try {
      setAnswer(await request(email.trim()))
    } catch (failure) {
      if (failure instanceof Problem && failure.errors.length > 0) {
        refuse(
          (failure.errors[0]?.message ?? failure.message).replace(/^email /, 'The e-mail address '),
        )
      } else setFormError(problemText(failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <form noValidate onSubmit={submit} class="panel link-form" aria-label={label}>
      <div class={`field${error ? ' has-error' : ''}`}>
        <label for="link-email">Your e-mail address</label>
        <input
          ref={input}
          id="link-email"
          name="email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'link-email-error' : undefined}
        />
        {error && (
          <p id="link-email-error" class="field-error">
            {error}
          </p>
        )}
      </div>
      {formError && (
        <p class="alert" role="alert">
          {formError}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
      {answer && (
        <p ref={status} class="status" role="status" tabIndex={-1}>
          {answer}
        </p>
      )}
    </form>
  )
}

/** A screen of its own around the form: its heading (focused when shown), why, then the form. */
export const LinkScreen = ({
  title,
  heading,
  children,
  ...form
}: {
  title: string
  heading: RefObject<HTMLHeadingElement | null>
  children: ComponentChildren
  label: string
  submit: string
  request: (email: string) => Promise<string>
}) => (
  <>
    <h1 ref={heading} tabIndex={-1}>
      {title}
    </h1>
    {children}
    <LinkForm {...form} />
  </>
)
