import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { AppCodeForm } from '../app-code'
import {
  type AuthenticationResult,
  answerMfaCode,
  confirmForgotPassword,
  explainCognitoError,
  forgotPassword,
  type SignInStep,
  setNewPassword,
  signInWithPassword,
} from '../cognito'
import { href } from '../scope'
import { PageTitle, Status } from '../ui'
import {
  type Errors,
  type Explained,
  FormEnd,
  FormMessage,
  TextField,
  useAction,
} from '../ui-forms'

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

type SignedIn = (result: AuthenticationResult) => void

const ANOTHER_STEP = 'The sign-in service asked for another step. Sign in again.'

/** Cognito's refusal next to its field, or for the form. */
const explainSignIn = (error: unknown): Explained => {
  const { field, message } = explainCognitoError(error)
  return field ? { fields: { [field]: message } } : { message }
}

const EmailField = (props: { value: string; onValue: (v: string) => void; error?: string }) => (
  <TextField label="E-mail address" type="email" autocomplete="username" required {...props} />
)

/**
 * A password input of these pages, with its value: typed hidden and required; `autocomplete` says
 * which password it is, so a password manager offers the right one.
 */
const usePassword = (
  label: string,
  autocomplete: 'current-password' | 'new-password' | 'one-time-code',
  more: { hint?: ComponentChildren; minLength?: number } = {},
) => {
  const [value, setValue] = useState('')
  return {
    value,
    set: setValue,
    field: (error: string | undefined) => (
      <TextField
        label={label}
        {...more}
        error={error}
        type="password"
        autocomplete={autocomplete}
        value={value}
        onValue={setValue}
        required
      />
    ),
  }
}

/** A new password typed twice, with the policy's check. */
const useNewPassword = () => {
  const password = usePassword('New password', 'new-password', {
    hint: <PolicyText />,
    minLength: PASSWORD_MIN,
  })
  const repeat = usePassword('Repeat the new password', 'new-password')
  return {
    password: password.value,
    problems: () => checkNewPassword(password.value, repeat.value),
    fields: (errors: Errors) => (
      <>
        {password.field(errors.newPassword)}
        {repeat.field(errors.repeat)}
      </>
    ),
  }
}

/** A sign-in page: the brand, its title, its content, and links to the other sign-in pages. */
const AuthFrame = (props: {
  title: string
  /** The heading, when it says more than the tab's title. */
  heading?: string
  children: ComponentChildren
  links?: [href: string, text: string][]
}) => (
  <main id="main" class="auth">
    <p class="brand">Virtual Shares console</p>
    <PageTitle title={props.title}>{props.heading ?? props.title}</PageTitle>
    {props.children}
    {props.links ? (
      <ul class="auth-links">
        {props.links.map(([to, text]) => (
          <li key={to}>
            <a href={to}>{text}</a>
          </li>
        ))}
      </ul>
    ) : null}
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
  return (
    <AuthFrame title="Enter your code" heading="Enter the code from your app">
      <p>
        Your account has two-step sign-in. Open the authenticator app you set up for the Virtual
        Shares console and enter the code it shows.
      </p>
      <AppCodeForm
        label="Code from your authenticator app"
        hint="6 digits. The app shows a new one every 30 seconds."
        missing="Enter the 6-digit code your authenticator app shows."
        submitLabel="Verify and sign in"
        focus
        onCode={async (digits) => {
          const next = await answerMfaCode(challenge.session, challenge.username, digits)
          if (next.kind !== 'signed-in') throw new FormMessage(ANOTHER_STEP)
          onSignedIn(next.result)
        }}
        onCancel={() => onRestart()}
        onRestart={onRestart}
      />
      <p class="hint">
        Lost the app? Ask the operator of the console to turn two-step sign-in off for your account,
        then sign in with your password and set it up again.
      </p>
    </AuthFrame>
  )
}

/** What a password sign-in leads to: signed in, or the authenticator app's code (the MFA step). */
const useSignInSteps = (onSignedIn: SignedIn) => {
  const [mfa, setMfa] = useState<MfaChallenge>()
  return {
    /** The app's code, when asked: the page to show instead of the form. */
    mfaStep: (onRestart: (message?: string) => void) =>
      mfa ? (
        <MfaSignIn
          challenge={mfa}
          onSignedIn={onSignedIn}
          onRestart={(message) => {
            setMfa(undefined)
            onRestart(message)
          }}
        />
      ) : null,
    /** Signed in, or the app's code asked; a new password asked here is `otherwise`'s to say. */
    finish: (answer: SignInStep, otherwise: string) => {
      if (answer.kind === 'signed-in') onSignedIn(answer.result)
      else if (answer.kind === 'mfa') setMfa(answer)
      else throw new FormMessage(otherwise)
    },
  }
}

export const SignInPage = ({ onSignedIn, notice }: { onSignedIn: SignedIn; notice?: string }) => {
  const [email, setEmail] = useState('')
  const password = usePassword('Password', 'current-password')
  const [challenge, setChallenge] = useState<{ session: string; username: string }>()
  const steps = useSignInSteps(onSignedIn)
  const chosen = useNewPassword()
  const { busy, errors, error, run, setError } = useAction((e) => {
    const explained = explainSignIn(e)
    // A policy refusal of the password typed to sign in is the form's, not a new password's.
    return explained.fields?.newPassword && !challenge
      ? { message: explained.fields.newPassword }
      : explained
  })

  const submit = (event: Event) => {
    event.preventDefault()
    void run(
      async () => {
        const answer = challenge
          ? await setNewPassword(challenge.session, challenge.username, chosen.password)
          : await signInWithPassword(email.trim(), password.value)
        if (answer.kind === 'new-password') setChallenge(answer)
        else steps.finish(answer, '')
      },
      challenge
        ? chosen.problems()
        : {
            ...checkEmail(email),
            ...(password.value === '' ? { password: 'Enter your password.' } : {}),
          },
    )
  }

  const mfaStep = steps.mfaStep((message) => {
    setChallenge(undefined)
    password.set('')
    setError(message ?? '')
  })
  if (mfaStep) return mfaStep

  return (
    <AuthFrame
      title={challenge ? 'Choose your password' : 'Sign in'}
      links={[
        [href('forgot-password'), 'Forgot your password?'],
        [href('accept'), 'Accept an invitation'],
      ]}
    >
      {notice && !challenge ? <Status>{notice}</Status> : null}
      <form onSubmit={submit} noValidate>
        {challenge ? (
          <>
            <p>
              You signed in with a temporary password. Choose your own to finish accepting the
              invitation.
            </p>
            {chosen.fields(errors)}
          </>
        ) : (
          <>
            <EmailField value={email} onValue={setEmail} error={errors.email} />
            {password.field(errors.password)}
          </>
        )}
        <FormEnd
          error={error}
          busy={busy}
          label={challenge ? 'Set password and sign in' : 'Sign in'}
        />
      </form>
    </AuthFrame>
  )
}

export const AcceptInvitationPage = ({ onSignedIn }: { onSignedIn: SignedIn }) => {
  const { query } = useLocation()
  const [email, setEmail] = useState(query.email ?? '')
  const temporary = usePassword('Temporary password', 'one-time-code', {
    hint: 'As written in the invitation e-mail.',
  })
  const chosen = useNewPassword()
  const steps = useSignInSteps(onSignedIn)
  const { busy, errors, error, run, setError } = useAction(explainSignIn)

  const submit = (event: Event) => {
    event.preventDefault()
    void run(
      async () => {
        let answer = await signInWithPassword(email.trim(), temporary.value.trim())
        // Already accepted, the "temporary" password being the person's own: signed in, or the
        // authenticator app's code next.
        if (answer.kind === 'new-password') {
          answer = await setNewPassword(answer.session, answer.username, chosen.password)
        }
        steps.finish(answer, ANOTHER_STEP)
      },
      {
        ...checkEmail(email),
        ...(temporary.value.trim() === ''
          ? { password: 'Enter the temporary password from the invitation e-mail.' }
          : {}),
        ...chosen.problems(),
      },
    )
  }

  const mfaStep = steps.mfaStep((message) => setError(message ?? ''))
  if (mfaStep) return mfaStep

  return (
    <AuthFrame
      title="Accept your invitation"
      links={[[href('sign-in'), 'Already have a password? Sign in']]}
    >
      <p>
        Your invitation e-mail holds a temporary password, valid for 7 days. Sign in with it once
        and choose your own password.
      </p>
      <form onSubmit={submit} noValidate>
        <EmailField value={email} onValue={setEmail} error={errors.email} />
        {temporary.field(errors.password)}
        {chosen.fields(errors)}
        <FormEnd error={error} busy={busy} label="Set password and sign in" />
      </form>
    </AuthFrame>
  )
}

export const ForgotPasswordPage = ({ onSignedIn }: { onSignedIn: SignedIn }) => {
  const { route } = useLocation()
  const [step, setStep] = useState<'email' | 'code'>('email')
  const [email, setEmail] = useState('')
  const [code, setCode] = useState('')
  const chosen = useNewPassword()
  const steps = useSignInSteps(onSignedIn)
  const { busy, errors, error, run } = useAction(explainSignIn)

  const sendCode = (event: Event) => {
    event.preventDefault()
    void run(async () => {
      try {
        await forgotPassword(email.trim())
      } catch (error) {
        // Whether the address has an account is never said: the same next step for every address.
        if (!/UserNotFound|NotAuthorized/.test((error as { type?: string }).type ?? '')) {
          throw new FormMessage(explainCognitoError(error).message)
        }
      }
      setStep('code')
    }, checkEmail(email))
  }

  const reset = (event: Event) => {
    event.preventDefault()
    void run(
      async () => {
        await confirmForgotPassword(email.trim(), code.trim(), chosen.password)
        const answer = await signInWithPassword(email.trim(), chosen.password)
        steps.finish(answer, 'Your password is set. Sign in with it.')
      },
      {
        ...(/^\s*\S+\s*$/.test(code) ? {} : { code: 'Enter the code from the e-mail.' }),
        ...chosen.problems(),
      },
    )
  }

  // The new password is set; the authenticator app's code finishes the sign-in.
  const mfaStep = steps.mfaStep(() => route(href('sign-in')))
  if (mfaStep) return mfaStep

  return (
    <AuthFrame title="Reset your password" links={[[href('sign-in'), 'Back to sign in']]}>
      {step === 'email' ? (
        <form onSubmit={sendCode} noValidate>
          <p>We send a code to your e-mail address. With it you choose a new password.</p>
          <EmailField value={email} onValue={setEmail} error={errors.email} />
          <FormEnd error={error} busy={busy} label="Send code" />
        </form>
      ) : (
        <form onSubmit={reset} noValidate>
          <Status>
            If {email.trim()} has an account, a code is on its way to it. It may take a minute.
          </Status>
          <TextField
            label="Code"
            hint="From the e-mail."
            error={errors.code}
            inputMode="numeric"
            autocomplete="one-time-code"
            value={code}
            onValue={setCode}
            required
          />
          {chosen.fields(errors)}
          <FormEnd error={error} busy={busy} label="Set new password">
            <button type="button" onClick={() => setStep('email')} disabled={busy}>
              Use another address
            </button>
          </FormEnd>
        </form>
      )}
    </AuthFrame>
  )
}
