import { useEffect, useRef, useState } from 'preact/hooks'
import { AppCodeForm } from '../app-code'
import {
  associateSoftwareToken,
  type CognitoUser,
  explainCognitoError,
  getUser,
  hasAuthenticatorApp,
  otpauthUri,
  setAuthenticatorApp,
  verifySoftwareToken,
} from '../cognito'
import { useScope } from '../scope'
import { withAccessToken } from '../session'
import { Alert, ConfirmDialog, CopyButton, PageTitle, Status } from '../ui'
import { type Explained, useAction } from '../ui-forms'

const explainCognito = (error: unknown): Explained => ({
  message: explainCognitoError(error).message,
})

/**
 * The signed-in person's account: two-step sign-in with an authenticator app (TOTP). Setting it
 * up shows a QR code and the same secret as text, and takes effect only once the app's first code
 * verifies it (AssociateSoftwareToken, VerifySoftwareToken, then SetUserMFAPreference); turning it
 * off asks first. All of it is Cognito's user API with the person's own access token: the
 * management API never sees the secret.
 */

/** How the app lists the account: the console's name and the host, so two stages differ. */
const appIssuer = () => `Virtual Shares (${location.hostname})`

/** The base32 secret in groups of four, as apps that take it typed ask for it. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ')

/**
 * The QR code, drawn as one SVG path (no inline style, no data: URL: the CSP stays strict). The
 * encoder is loaded when the code is first shown, so the first page's script stays small.
 */
const QrCode = ({ text, label }: { text: string; label: string }) => {
  const [drawn, setDrawn] = useState<{ size: number; path: string }>()
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let live = true
    import('uqr')
      .then(({ encode }) => {
        const { data, size } = encode(text, { ecc: 'M', border: 2 })
        let path = ''
        data.forEach((row, y) => {
          row.forEach((dark, x) => {
            if (dark) path += `M${x} ${y}h1v1h-1z`
          })
        })
        if (live) setDrawn({ size, path })
      })
      .catch(() => {
        if (live) setFailed(true)
      })
    return () => {
      live = false
    }
  }, [text])
  if (failed) {
    return (
      <p class="qr-missing">The QR code could not be drawn: type the key below into the app.</p>
    )
  }
  if (!drawn) return <p class="qr-missing">Drawing the QR code…</p>
  return (
    <svg
      class="qr"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${drawn.size} ${drawn.size}`}
      width={drawn.size * 5}
      height={drawn.size * 5}
      shape-rendering="crispEdges"
    >
      <rect width={drawn.size} height={drawn.size} fill="#fff" />
      <path d={drawn.path} fill="#000" />
    </svg>
  )
}

type Enrolment = { secret: string }

const SetUp = ({
  email,
  enrolment,
  onDone,
  onCancel,
}: {
  email: string
  enrolment: Enrolment
  onDone: () => void
  onCancel: () => void
}) => {
  const heading = useRef<HTMLHeadingElement>(null)
  const uri = otpauthUri(appIssuer(), email, enrolment.secret)
  // The button that opened this section is gone: the focus goes to its heading, read out first.
  useEffect(() => heading.current?.focus(), [])

  return (
    <section class="panel mfa-setup" aria-labelledby="mfa-setup">
      <h2 id="mfa-setup" ref={heading} tabIndex={-1}>
        Set up an authenticator app
      </h2>
      <ol>
        <li>
          Open an authenticator app on your phone (any app for "TOTP" codes: Google Authenticator,
          Microsoft Authenticator, 1Password, Bitwarden…) and add an account.
        </li>
        <li>Scan this QR code, or type the key shown under it.</li>
        <li>Enter the 6-digit code the app then shows.</li>
      </ol>
      <QrCode
        text={uri}
        label={`QR code to add ${email} at Virtual Shares to an authenticator app`}
      />
      <p>
        Key (time-based):{' '}
        <code class="secret totp-secret" id="totp-secret">
          {grouped(enrolment.secret)}
        </code>
      </p>
      <CopyButton text={enrolment.secret} label="Copy key" />
      <p class="hint">
        Keep the key to yourself: with it anyone can make your codes. It is not shown again once you
        leave this page.
      </p>
      <AppCodeForm
        label="Code from the app"
        hint="6 digits. It proves the app has the key; a new one comes every 30 seconds."
        missing="Enter the 6-digit code the app shows for Virtual Shares."
        submitLabel="Verify and turn on"
        onCode={async (digits) => {
          await withAccessToken((token) => verifySoftwareToken(token, digits, 'Authenticator app'))
          await withAccessToken((token) => setAuthenticatorApp(token, true))
          onDone()
        }}
        onCancel={onCancel}
      />
    </section>
  )
}

export const AccountPage = () => {
  const scope = useScope()
  const [user, setUser] = useState<CognitoUser>()
  const [loadError, setLoadError] = useState('')
  const [enrolment, setEnrolment] = useState<Enrolment>()
  const [notice, setNotice] = useState('')
  const starting = useAction(explainCognito)
  const off = useAction(explainCognito)
  const [confirmOff, setConfirmOff] = useState(false)
  // Where the focus goes when the controls it was on are replaced (turned on, turned off).
  const heading = useRef<HTMLHeadingElement>(null)

  const load = async () => {
    try {
      setUser(await withAccessToken(getUser))
      setLoadError('')
    } catch (e) {
      setLoadError(explainCognitoError(e).message)
    }
  }
  useEffect(() => {
    void load()
  }, [])

  const start = () => {
    setNotice('')
    void starting.run(async () =>
      setEnrolment({ secret: await withAccessToken(associateSoftwareToken) }),
    )
  }

  const turnOff = () =>
    off.run(async () => {
      await withAccessToken((token) => setAuthenticatorApp(token, false))
      setConfirmOff(false)
      setNotice(
        'Two-step sign-in is off: your password alone signs you in. Remove the Virtual Shares account from your app.',
      )
      await load()
      heading.current?.focus()
    })

  const on = user ? hasAuthenticatorApp(user) : undefined

  return (
    <>
      <PageTitle title="Your account">Your account</PageTitle>
      <p>
        Signed in as <strong>{scope.email}</strong>.
      </p>
      <section class="panel" aria-labelledby="mfa">
        <h2 id="mfa" ref={heading} tabIndex={-1}>
          Two-step sign-in
        </h2>
        <p>
          With an authenticator app, signing in asks for your password and a 6-digit code from the
          app, so a stolen password alone does not open your account.
        </p>
        {notice ? <Status>{notice}</Status> : null}
        <Alert>{loadError || starting.error}</Alert>
        {on === undefined ? (
          loadError ? null : (
            <p role="status">Loading…</p>
          )
        ) : on ? (
          <>
            <p class="mfa-state">
              <strong>On</strong>: signing in asks for a code from your authenticator app.
            </p>
            <div class="actions">
              <button type="button" class="danger" onClick={() => setConfirmOff(true)}>
                Turn off two-step sign-in
              </button>
            </div>
            <p class="hint">
              To move to another app or phone, turn it off here, then set it up again.
            </p>
          </>
        ) : enrolment ? null : (
          <>
            <p class="mfa-state">
              <strong>Off</strong>: your password alone signs you in.
            </p>
            <div class="actions">
              <button type="button" class="primary" onClick={start} disabled={starting.busy}>
                Set up an authenticator app
              </button>
            </div>
          </>
        )}
      </section>
      {enrolment && on === false ? (
        <SetUp
          email={scope.email}
          enrolment={enrolment}
          onCancel={() => setEnrolment(undefined)}
          onDone={async () => {
            setEnrolment(undefined)
            setNotice(
              'Two-step sign-in is on. From now on, signing in asks for a code from your app.',
            )
            await load()
            heading.current?.focus()
          }}
        />
      ) : null}
      <ConfirmDialog
        open={confirmOff}
        title="Turn off two-step sign-in?"
        confirmLabel="Turn off"
        danger
        busy={off.busy}
        error={off.error}
        onConfirm={() => void turnOff()}
        onClose={() => {
          setConfirmOff(false)
          off.setError('')
        }}
      >
        <p>Your password alone will sign you in. You can set up an app again at any time.</p>
      </ConfirmDialog>
    </>
  )
}
