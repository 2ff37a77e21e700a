import { useState } from 'preact/hooks'
import {
  type AuthenticationResult,
  confirmForgotPassword,
  explainCognitoError,
  forgotPassword,
  setNewPassword,
  signInWithPassword,
} from '../cognito'
import { Link } from '../router'
import { Alert, Field, inputValue, PageTitle, Status } from '../ui'

/**
 * Signing in, accepting an invitation (the temporary password, then one's own) and resetting a
 * forgotten password, all against Cognito's JSON API. The password policy is shown before the
 * person submits; each error is shown next to its field.
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

export const SignInPage = ({ onSignedIn, notice }: { onSignedIn: SignedIn; notice?: string }) => {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [challenge, setChallenge] = useState<{ session: string; username: string }>()
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
      if (challenge) {
        onSignedIn(await setNewPassword(challenge.session, challenge.username, newPassword))
        return
      }
      const answer = await signInWithPassword(email.trim(), password)
      if (answer.kind === 'signed-in') onSignedIn(answer.result)
      else setChallenge({ session: answer.session, username: answer.username })
    } catch (error) {
      const { field, message } = explainCognitoError(error)
      if (field && (field !== 'newPassword' || challenge)) setErrors({ [field]: message })
      else setFormError(message)
    } finally {
      setBusy(false)
    }
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
      const answer = await signInWithPassword(email.trim(), temporary.trim())
      if (answer.kind === 'signed-in') {
        // Already accepted: the "temporary" password was the person's own.
        onSignedIn(answer.result)
        return
      }
      onSignedIn(await setNewPassword(answer.session, answer.username, password))
    } catch (error) {
      const { field, message } = explainCognitoError(error)
      if (field) setErrors({ [field]: message })
      else setFormError(message)
    } finally {
      setBusy(false)
    }
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
      else setFormError('Your password is set. Sign in with it.')
    } catch (error) {
      const { field, message } = explainCognitoError(error)
      if (field) setErrors({ [field]: message })
      else setFormError(message)
    } finally {
      setBusy(false)
    }
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
