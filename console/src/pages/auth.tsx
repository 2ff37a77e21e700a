import { useEffect, useRef, useState } from 'preact/hooks'
import {
  type AuthenticationResult,
  answerMfaCode,
  appCode,
  confirmForgotPassword,
  explainAppCodeError,
  explainCognitoError,
  forgotPassword,
  type SignInStep,
  setNewPassword,
  signInWithPassword,
} from '../cognito'
import { Link, navigate } from '../router'
import { Alert, CodeField, Field, inputValue, PageTitle, Status } from '../ui'

/**
 * Signing in, accepting an invitation (the temporary password, then one's own) and resetting a
 * forgotten password, all against Cognito's JSON API. The password policy is shown before the
 * person submits; each error is shown next to its field. Someone who turned on an authenticator
 * app (the account page) is asked for its code after the password, on each of these pages.
 */

/** lib/identity.ts (functions/identity/identity-settings.ts): 15 characters, no other rule. */
export const PASSWORD_MIN = 15
const PASSWORD_MAX = 256
export const PolicyText = () => (
  <>
    At least {PASSWORD_MIN} characters. Any characters count, spaces included: a passphrase of a few
    words works well. There is no rule about digits, capitals or symbols.
  </>
)

const checkNewPassword = (password: string, repeat: string): Record<string, string> => {
  const length = [...password].length
  if (length < PASSWORD_MIN) {
    return {
      newPassword: `The password has ${length} character${length === 1 ? '' : 's'}; it needs at least ${PASSWORD_MIN}.`,
    }
  }
  if (length > PASSWORD_MAX) {
    return { newPassword: `The password may have at most ${PASSWORD_MAX} characters.` }
  }
  if (password !== repeat) return { repeat: 'The two passwords are not the same.' }
  return {}
}

const checkEmail = (email: string): Record<string, string> =>
  /^[^\s@]+@[^\s@]+$/.test(email.trim())
    ? {}
    : { email: 'Enter the e-mail address the invitation was sent to.' }

type Errors = Record<string, string>
type SignedIn = (result: AuthenticationResult) => void

const NewPasswordFields = ({
  password,
  repeat,
  setPassword,
  setRepeat,
  errors,
  label = 'New password',
}: {
  password: string
  repeat: string
  setPassword: (v: string) => void
  setRepeat: (v: string) => void
  errors: Errors
  label?: string
}) => (
  <>
    <Field label={label} hint={<PolicyText />} error={errors.newPassword}>
      {(props) => (
        <input
          {...props}
          type="password"
          autocomplete="new-password"
          value={password}
          onInput={(e) => setPassword(inputValue(e))}
          required
          minLength={PASSWORD_MIN}
        />
      )}
    </Field>
    <Field label={`Repeat the ${label.toLowerCase()}`} error={errors.repeat}>
      {(props) => (
        <input
          {...props}
          type="password"
          autocomplete="new-password"
          value={repeat}
          onInput={(e) => setRepeat(inputValue(e))}
          required
        />
      )}
    </Field>
  </>
)

const AuthFrame = ({ children }: { children: preact.ComponentChildren }) => (
  <main id="main" class="auth">
    <p class="brand">Virtual Shares console</p>
    {children}
  </main>
)

type MfaChallenge = Extract<SignInStep, { kind: 'mfa' }>

/**
 * The second step of a sign-in with an authenticator app: its current code. A wrong code is said
 * next to the field and may be corrected; a sign-in left too long (Cognito's session lasts
 * 3 minutes) goes back to the password.
 */
const MfaSignIn = ({
  challenge,
  onSignedIn,
  onRestart,
}: {
  challenge: MfaChallenge
  onSignedIn: SignedIn
  onRestart: (message?: string) => void
}) => {
  const [code, setCode] = useState('')
  const [errors, setErrors] = useState<Errors>({})
  const [formError, setFormError] = useState('')
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    const digits = appCode(code)
    if (!digits) {
      setErrors({ code: 'Enter the 6-digit code your authenticator app shows.' })
      input.current?.focus()
      return
    }
    setErrors({})
    setBusy(true)
    try {
      const next = await answerMfaCode(challenge.session, challenge.username, digits)
      if (next.kind === 'signed-in') {
        onSignedIn(next.result)
        return
      }
      setFormError('The sign-in service asked for another step. Sign in again.')
    } catch (error) {
      const { field, message, restart } = explainAppCodeError(error)
      if (restart) onRestart(message)
      else if (field) {
        setErrors({ [field]: message })
        setCode('')
        input.current?.focus()
      } else setFormError(message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <AuthFrame>
      <PageTitle title="Enter your code">Enter the code from your app</PageTitle>
      <p>
        Your account has two-step sign-in. Open the authenticator app you set up for the Virtual
        Shares console and enter the code it shows.
      </p>
      <form onSubmit={submit} noValidate>
        <CodeField
          label="Code from your authenticator app"
          hint="6 digits. The app shows a new one every 30 seconds."
          error={errors.code}
          value={code}
          onValue={setCode}
          inputRef={input}
        />
        <Alert>{formError}</Alert>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Verify and sign in
          </button>
          <button type="button" onClick={() => onRestart()} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
      <p class="hint">
        Lost the app? Ask the operator of the console to turn two-step sign-in off for your account,
        then sign in with your password and set it up again.
      </p>
    </AuthFrame>
  )
}

export const SignInPage = ({ onSignedIn, notice }: { onSignedIn: SignedIn; notice?: string }) => {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [challenge, setChallenge] = useState<{ session: string; username: string }>()
  const [mfa, setMfa] = useState<MfaChallenge>()
  const [newPassword, setNewPasswordValue] = useState('')
  const [repeat, setRepeat] = useState('')
  const [errors, setErrors] = useState<Errors>({})
  const [formError, setFormError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    const problems = challenge
      ? checkNewPassword(newPassword, repeat)
      : { ...checkEmail(email), ...(password === '' ? { password: 'Enter your password.' } : {}) }
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    setBusy(true)
    try {
      const answer = challenge
        ? await setNewPassword(challenge.session, challenge.username, newPassword)
        : await signInWithPassword(email.trim(), password)
      if (answer.kind === 'signed-in') onSignedIn(answer.result)
      else if (answer.kind === 'mfa') setMfa(answer)
      else setChallenge({ session: answer.session, username: answer.username })
    } catch (error) {
      const { field, message } = explainCognitoError(error)
      if (field && (field !== 'newPassword' || challenge)) setErrors({ [field]: message })
      else setFormError(message)
    } finally {
      setBusy(false)
    }
  }

  if (mfa) {
    return (
      <MfaSignIn
        challenge={mfa}
        onSignedIn={onSignedIn}
        onRestart={(message) => {
          setMfa(undefined)
          setChallenge(undefined)
          setPassword('')
          setFormError(message ?? '')
        }}
      />
    )
  }

  return (
    <AuthFrame>
      <PageTitle title={challenge ? 'Choose your password' : 'Sign in'}>
        {challenge ? 'Choose your password' : 'Sign in'}
      </PageTitle>
      {notice && !challenge ? <Status>{notice}</Status> : null}
      <form onSubmit={submit} noValidate>
        {challenge ? (
          <>
            <p>
              You signed in with a temporary password. Choose your own to finish accepting the
              invitation.
            </p>
            <NewPasswordFields
              password={newPassword}
              repeat={repeat}
              setPassword={setNewPasswordValue}
              setRepeat={setRepeat}
              errors={errors}
            />
          </>
        ) : (
          <>
            <Field label="E-mail address" error={errors.email}>
              {(props) => (
                <input
                  {...props}
                  type="email"
                  autocomplete="username"
                  value={email}
                  onInput={(e) => setEmail(inputValue(e))}
                  required
                />
              )}
            </Field>
            <Field label="Password" error={errors.password}>
              {(props) => (
                <input
                  {...props}
                  type="password"
                  autocomplete="current-password"
                  value={password}
                  onInput={(e) => setPassword(inputValue(e))}
                  required
                />
              )}
            </Field>
          </>
        )}
        <Alert>{formError}</Alert>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {challenge ? 'Set password and sign in' : 'Sign in'}
          </button>
        </div>
      </form>
      <ul class="auth-links">
        <li>
          <Link to="forgot-password">Forgot your password?</Link>
        </li>
        <li>
          <Link to="accept">Accept an invitation</Link>
        </li>
      </ul>
    </AuthFrame>
  )
}

export const AcceptInvitationPage = ({ onSignedIn }: { onSignedIn: SignedIn }) => {
  const params = new URLSearchParams(location.search)
  const [email, setEmail] = useState(params.get('email') ?? '')
  const [temporary, setTemporary] = useState('')
  const [password, setPassword] = useState('')
  const [repeat, setRepeat] = useState('')
  const [mfa, setMfa] = useState<MfaChallenge>()
  const [errors, setErrors] = useState<Errors>({})
  const [formError, setFormError] = useState('')
  const [busy, setBusy] = useState(false)

  const submit = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    const problems = {
      ...checkEmail(email),
      ...(temporary.trim() === ''
        ? { password: 'Enter the temporary password from the invitation e-mail.' }
        : {}),
      ...checkNewPassword(password, repeat),
    }
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    setBusy(true)
    try {
      let answer = await signInWithPassword(email.trim(), temporary.trim())
      // Already accepted, the "temporary" password being the person's own: signed in, or the
      // authenticator app's code next.
      if (answer.kind === 'new-password') {
        answer = await setNewPassword(answer.session, answer.username, password)
      }
      if (answer.kind === 'signed-in') onSignedIn(answer.result)
      else if (answer.kind === 'mfa') setMfa(answer)
      else setFormError('The sign-in service asked for another step. Sign in again.')
    } catch (error) {
      const { field, message } = explainCognitoError(error)
      if (field) setErrors({ [field]: message })
      else setFormError(message)
    } finally {
      setBusy(false)
    }
  }

  if (mfa) {
    return (
      <MfaSignIn
        challenge={mfa}
        onSignedIn={onSignedIn}
        onRestart={(message) => {
          setMfa(undefined)
          setFormError(message ?? '')
        }}
      />
    )
  }

  return (
    <AuthFrame>
      <PageTitle title="Accept your invitation">Accept your invitation</PageTitle>
      <p>
        Your invitation e-mail holds a temporary password, valid for 7 days. Sign in with it once
        and choose your own password.
      </p>
      <form onSubmit={submit} noValidate>
        <Field label="E-mail address" error={errors.email}>
          {(props) => (
            <input
              {...props}
              type="email"
              autocomplete="username"
              value={email}
              onInput={(e) => setEmail(inputValue(e))}
              required
            />
          )}
        </Field>
        <Field
          label="Temporary password"
          hint="As written in the invitation e-mail."
          error={errors.password}
        >
          {(props) => (
            <input
              {...props}
              type="password"
              autocomplete="one-time-code"
              value={temporary}
              onInput={(e) => setTemporary(inputValue(e))}
              required
            />
          )}
        </Field>
        <NewPasswordFields
          password={password}
          repeat={repeat}
          setPassword={setPassword}
          setRepeat={setRepeat}
          errors={errors}
        />
        <Alert>{formError}</Alert>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Set password and sign in
          </button>
        </div>
      </form>
      <ul class="auth-links">
        <li>
          <Link to="sign-in">Already have a password? Sign in</Link>
        </li>
      </ul>
    </AuthFrame>
  )
}

export const ForgotPasswordPage = ({ onSignedIn }: { onSignedIn: SignedIn }) => {
  const [step, setStep] = useState<'email' | 'code'>('email')
  const [mfa, setMfa] = useState<MfaChallenge>()
  const [email, setEmail] = useState('')
  const [code, setCode] = useState('')
  const [password, setPassword] = useState('')
  const [repeat, setRepeat] = useState('')
  const [errors, setErrors] = useState<Errors>({})
  const [formError, setFormError] = useState('')
  const [busy, setBusy] = useState(false)

  const sendCode = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    const problems = checkEmail(email)
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    setBusy(true)
    try {
      await forgotPassword(email.trim())
      setStep('code')
    } catch (error) {
      const { message } = explainCognitoError(error)
      // Whether the address has an account is never said: the same next step for every address.
      if (/UserNotFound|NotAuthorized/.test((error as { type?: string }).type ?? ''))
        setStep('code')
      else setFormError(message)
    } finally {
      setBusy(false)
    }
  }

  const reset = async (event: Event) => {
    event.preventDefault()
    setFormError('')
    const problems = {
      ...(/^\s*\S+\s*$/.test(code) ? {} : { code: 'Enter the code from the e-mail.' }),
      ...checkNewPassword(password, repeat),
    }
    setErrors(problems)
    if (Object.keys(problems).length > 0) return
    setBusy(true)
    try {
      await confirmForgotPassword(email.trim(), code.trim(), password)
      const answer = await signInWithPassword(email.trim(), password)
      if (answer.kind === 'signed-in') onSignedIn(answer.result)
      else if (answer.kind === 'mfa') setMfa(answer)
      else setFormError('Your password is set. Sign in with it.')
    } catch (error) {
      const { field, message } = explainCognitoError(error)
      if (field) setErrors({ [field]: message })
      else setFormError(message)
    } finally {
      setBusy(false)
    }
  }

  if (mfa) {
    // The new password is set; the authenticator app's code finishes the sign-in.
    return (
      <MfaSignIn challenge={mfa} onSignedIn={onSignedIn} onRestart={() => navigate('sign-in')} />
    )
  }

  return (
    <AuthFrame>
      <PageTitle title="Reset your password">Reset your password</PageTitle>
      {step === 'email' ? (
        <form onSubmit={sendCode} noValidate>
          <p>We send a code to your e-mail address. With it you choose a new password.</p>
          <Field label="E-mail address" error={errors.email}>
            {(props) => (
              <input
                {...props}
                type="email"
                autocomplete="username"
                value={email}
                onInput={(e) => setEmail(inputValue(e))}
                required
              />
            )}
          </Field>
          <Alert>{formError}</Alert>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Send code
            </button>
          </div>
        </form>
      ) : (
        <form onSubmit={reset} noValidate>
          <Status>
            If {email.trim()} has an account, a code is on its way to it. It may take a minute.
          </Status>
          <Field label="Code" hint="From the e-mail." error={errors.code}>
            {(props) => (
              <input
                {...props}
                inputMode="numeric"
                autocomplete="one-time-code"
                value={code}
                onInput={(e) => setCode(inputValue(e))}
                required
              />
            )}
          </Field>
          <NewPasswordFields
            password={password}
            repeat={repeat}
            setPassword={setPassword}
            setRepeat={setRepeat}
            errors={errors}
          />
          <Alert>{formError}</Alert>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Set new password
            </button>
            <button type="button" onClick={() => setStep('email')} disabled={busy}>
              Use another address
            </button>
          </div>
        </form>
      )}
      <ul class="auth-links">
        <li>
          <Link to="sign-in">Back to sign in</Link>
        </li>
      </ul>
    </AuthFrame>
  )
}
