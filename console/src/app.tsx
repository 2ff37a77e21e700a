import type { ComponentType } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import { LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso'
import { issuerApi, me as loadMeOnce, type Me, type Mode, SignedOut } from './api'
import type { AuthenticationResult } from './cognito'
import { loadConfig } from './config'
import { AcceptInvitationPage, ForgotPasswordPage, SignInPage } from './pages/auth'
import { ProgramsPage } from './pages/programs'
import { BASE, href, type Scope, ScopeContext, scopePath } from './scope'
import { hasSession, onSessionEnded, refreshNow, signOut, startSession } from './session'
import { Alert, PageTitle } from './ui'
import { errorText } from './ui-format'

/** A chunk that could not be fetched (offline, or a build long gone) says so instead of waiting. */
const NotLoaded = () => (
  <>
    <PageTitle title="Page not loaded">This page could not be loaded</PageTitle>
    <p>Check your connection, then reload the page.</p>
    <button type="button" onClick={() => location.reload()}>
      Reload
    </button>
  </>
)
const lazyPage = <P,>(load: () => Promise<ComponentType<P>>) =>
  lazy(() => load().catch(() => NotLoaded as ComponentType<P>))

// The sign-in pages and the programs list come with the first page; the others when first opened.
const ProgramPage = lazyPage(() => import('./pages/program').then((m) => m.ProgramPage))
const SendManyPage = lazyPage(() => import('./pages/send-many').then((m) => m.SendManyPage))
const BatchPage = lazyPage(() => import('./pages/batch').then((m) => m.BatchPage))
const KeysPage = lazyPage(() => import('./pages/keys').then((m) => m.KeysPage))
const WebhooksPage = lazyPage(() => import('./pages/webhooks').then((m) => m.WebhooksPage))
const WebhookEndpointPage = lazyPage(() =>
  import('./pages/webhooks').then((m) => m.WebhookEndpointPage),
)
const TeamPage = lazyPage(() => import('./pages/team').then((m) => m.TeamPage))
const AuditPage = lazyPage(() => import('./pages/audit').then((m) => m.AuditPage))
const AccountPage = lazyPage(() => import('./pages/account').then((m) => m.AccountPage))
const GrantPage = lazyPage(() => import('./pages/grant').then((m) => m.GrantPage))
const InboxPage = lazyPage(() => import('./pages/inbox').then((m) => m.InboxPage))
const LogsPage = lazyPage(() => import('./pages/logs').then((m) => m.LogsPage))
const RequestPage = lazyPage(() => import('./pages/logs').then((m) => m.RequestPage))

const PUBLIC = ['sign-in', 'accept', 'forgot-password']
const LAST_ISSUER = 'vs.console.issuer'

type Phase =
  | { kind: 'starting' }
  | { kind: 'failed'; message: string }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'signed-in'; me: Me }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Who the person is; a membership added a moment ago may show a little late (an index). */
const loadMe = async () => {
  let me = await loadMeOnce()
  if (me.memberships.length === 0) {
    await sleep(1500)
    me = await loadMeOnce()
  }
  return me
}

const rememberIssuer = (issuerId: string) => {
  try {
    localStorage.setItem(LAST_ISSUER, issuerId)
  } catch {
    // Not essential.
  }
}

/** Where a signed-in person lands: their last issuer's programs (else their first), in Test mode. */
const homeOf = (me: Me) => {
  let last: string | null = null
  try {
    last = localStorage.getItem(LAST_ISSUER)
  } catch {
    // Not essential.
  }
  const chosen =
    me.memberships.find((m) => m.issuerId === last) ?? (me.memberships[0] as Me['memberships'][0])
  return scopePath(chosen.issuerId, 'TEST', 'programs')
}

const Loading = () => (
  <main id="main" class="auth">
    <p role="status">Loading…</p>
  </main>
)

/** Another address for this one, without a history entry of its own. */
const Redirect = ({ to }: { to: string }) => {
  const { route } = useLocation()
  useEffect(() => route(to, true), [to])
  return <Loading />
}

const NoIssuer = ({
  me,
  onRetry,
  onSignOut,
}: {
  me: Me
  onRetry: () => void
  onSignOut: () => void
}) => (
  <main id="main" class="auth">
    <p class="brand">Virtual Shares console</p>
    <PageTitle title="No issuer yet">You do not belong to an issuer yet</PageTitle>
    <p>
      You are signed in{me.email ? ` as ${me.email}` : ''}, but no issuer has given you a role. An
      owner of an issuer invites people from its Team page; the operator invites the first owner. If
      you were invited a moment ago, check again.
    </p>
    <div class="actions">
      <button type="button" class="primary" onClick={onRetry}>
        Check again
      </button>
      <button type="button" onClick={onSignOut}>
        Sign out
      </button>
    </div>
  </main>
)

const NotFound = ({ home }: { home: string }) => (
  <>
    <PageTitle title="Page not found">Page not found</PageTitle>
    <p>
      This page does not exist, or you have no access to it. <a href={home}>Go to the programs</a>
    </p>
  </>
)

const ModeSwitch = ({ mode, onChange }: { mode: Mode; onChange: (mode: Mode) => void }) => (
  <label class={`mode-switch${mode === 'TEST' ? ' on' : ''}`}>
    <input
      type="checkbox"
      role="switch"
      aria-checked={mode === 'TEST'}
      checked={mode === 'TEST'}
      onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked ? 'TEST' : 'LIVE')}
    />
    <span>Test mode</span>
  </label>
)

const NAV = [
  { section: 'programs', label: 'Programs' },
  { section: 'keys', label: 'API keys' },
  { section: 'webhooks', label: 'Webhooks' },
  { section: 'inbox', label: 'TEST inbox' },
  { section: 'team', label: 'Team' },
  { section: 'audit', label: 'Audit log' },
  { section: 'logs', label: 'Logs' },
]

/** The signed-in frame: issuer, mode and account in the top bar, the sections, the page. */
const Shell = ({
  scope,
  section,
  onSignOut,
}: {
  scope: Scope
  section: string
  onSignOut: () => void
}) => {
  const { route } = useLocation()
  // The other mode's page of the same section; a program or an unknown page has none: its list.
  const switchMode = (mode: Mode) =>
    route(
      scope.at(
        section === 'programs' || (!NAV.some((n) => n.section === section) && section !== 'account')
          ? 'programs'
          : section,
        mode,
      ),
    )

  return (
    <ScopeContext.Provider value={scope}>
      <a class="skip" href="#main">
        Skip to the page
      </a>
      <header class={`topbar mode-${scope.mode.toLowerCase()}`}>
        <div class="topbar-row">
          <span class="brand">Virtual Shares</span>
          {scope.memberships.length > 1 ? (
            <span class="issuer-switch">
              <label for="issuer-switch">Issuer</label>
              <select
                id="issuer-switch"
                value={scope.issuerId}
                onChange={(e) => {
                  const issuerId = (e.currentTarget as HTMLSelectElement).value
                  rememberIssuer(issuerId)
                  route(scopePath(issuerId, scope.mode, 'programs'))
                }}
              >
                {scope.memberships.map((m) => (
                  <option key={m.issuerId} value={m.issuerId}>
                    {m.issuerName ?? m.issuerId} ({m.role})
                  </option>
                ))}
              </select>
            </span>
          ) : (
            <bdi class="issuer-name">{scope.issuerName}</bdi>
          )}
          <ModeSwitch mode={scope.mode} onChange={switchMode} />
          <span class="account">
            {scope.email} · {scope.role}
            <a href={scope.at('account')} aria-current={section === 'account' ? 'page' : undefined}>
              Your account
            </a>
            <button type="button" onClick={onSignOut}>
              Sign out
            </button>
          </span>
        </div>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.section}>
                <a
                  href={scope.at(item.section)}
                  aria-current={item.section === section ? 'page' : undefined}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {scope.mode === 'TEST' ? (
          <div class="test-banner" role="note">
            <strong>Test mode</strong>: TEST programs and keys. Nothing here grants real shares.
          </div>
        ) : (
          <div class="live-banner" role="note">
            <strong>Live mode</strong>: LIVE programs and keys grant real shares.
          </div>
        )}
      </header>
      <main id="main">
        {/* The rest of the address after /app/<issuer>/<mode>. */}
        <Router>
          <Route path="/" component={ProgramsPage} />
          <Route path="/programs" component={ProgramsPage} />
          <Route path="/programs/:programId" component={ProgramPage} />
          <Route path="/programs/:programId/send-many" component={SendManyPage} />
          <Route path="/programs/:programId/batches/:batchId" component={BatchPage} />
          <Route path="/grants/:grantId" component={GrantPage} />
          <Route path="/inbox" component={InboxPage} />
          <Route path="/keys" component={KeysPage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/webhooks/:endpointId" component={WebhookEndpointPage} />
          <Route path="/team" component={TeamPage} />
          <Route path="/audit" component={AuditPage} />
          <Route path="/logs" component={LogsPage} />
          <Route path="/logs/:requestId" component={RequestPage} />
          <Route path="/account" component={AccountPage} />
          <Route default component={NotFound} home={scope.at('programs')} />
        </Router>
      </main>
    </ScopeContext.Provider>
  )
}

type AreaProps = {
  me: Me
  onSignOut: () => void
  issuerId?: string
  mode?: string
  rest?: string
}

/**
 * /app/<issuer>/<mode>/...: the person's issuer in Test or Live mode. An address without a mode
 * goes to Test mode; one of an issuer that is not theirs is not found (nothing of it is shown).
 */
const IssuerArea = ({ me, onSignOut, issuerId = '', mode, rest = '' }: AreaProps) => {
  const membership = me.memberships.find((m) => m.issuerId === issuerId)
  const modeOf: Mode | undefined = mode === 'test' ? 'TEST' : mode === 'live' ? 'LIVE' : undefined
  const scope = useMemo<Scope | undefined>(() => {
    if (!membership || !modeOf) return undefined
    return {
      email: me.email ?? '',
      issuerId: membership.issuerId,
      issuerName: membership.issuerName ?? membership.issuerId,
      role: membership.role,
      mode: modeOf,
      memberships: me.memberships,
      api: issuerApi(membership.issuerId),
      at: (section: string, m: Mode = modeOf) => scopePath(membership.issuerId, m, section),
    }
  }, [me, membership, modeOf])
  useEffect(() => {
    if (scope) rememberIssuer(scope.issuerId)
  }, [scope?.issuerId])

  if (PUBLIC.includes(issuerId)) return <Redirect to={homeOf(me)} />
  if (!membership) {
    return (
      <main id="main" class="auth">
        <NotFound home={homeOf(me)} />
      </main>
    )
  }
  if (!scope) {
    const page = [mode, rest.slice(1)].filter(Boolean).join('/')
    return <Redirect to={scopePath(issuerId, 'TEST', page || 'programs')} />
  }
  return <Shell scope={scope} section={rest.split('/')[1] || 'programs'} onSignOut={onSignOut} />
}

const Console = () => {
  const { route } = useLocation()
  const [phase, setPhase] = useState<Phase>({ kind: 'starting' })

  const enter = async (notice?: string) => {
    try {
      const me = await loadMe()
      setPhase({ kind: 'signed-in', me })
    } catch (error) {
      if (error instanceof SignedOut)
        setPhase({ kind: 'signed-out', ...(notice ? { notice } : {}) })
      else setPhase({ kind: 'failed', message: errorText(error) })
    }
  }

  useEffect(() => {
    onSessionEnded((reason) => setPhase({ kind: 'signed-out', notice: reason }))
    ;(async () => {
      try {
        await loadConfig()
      } catch (error) {
        setPhase({
          kind: 'failed',
          message: `The console could not load its configuration: ${errorText(error)}`,
        })
        return
      }
      if (hasSession()) {
        try {
          if (await refreshNow()) {
            await enter()
            return
          }
        } catch (error) {
          setPhase({ kind: 'failed', message: errorText(error) })
          return
        }
      }
      setPhase({ kind: 'signed-out' })
    })()
  }, [])

  const signedIn = async (result: AuthenticationResult) => {
    startSession(result)
    await enter()
  }

  const leave = async () => {
    await signOut()
    setPhase({ kind: 'signed-out', notice: 'You are signed out.' })
    route(href('sign-in'))
  }

  switch (phase.kind) {
    case 'starting':
      return (
        <main id="main" class="auth">
          <p role="status">Loading the console…</p>
        </main>
      )
    case 'failed':
      return (
        <main id="main" class="auth">
          <PageTitle title="The console could not start">The console could not start</PageTitle>
          <Alert>{phase.message}</Alert>
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </main>
      )
    case 'signed-out':
      // Any other address asks to sign in first, and is shown once signed in.
      return (
        <Router>
          <Route
            path={`${BASE}accept/:rest*`}
            component={AcceptInvitationPage}
            onSignedIn={signedIn}
          />
          <Route
            path={`${BASE}forgot-password/:rest*`}
            component={ForgotPasswordPage}
            onSignedIn={signedIn}
          />
          <Route default component={SignInPage} onSignedIn={signedIn} notice={phase.notice} />
        </Router>
      )
    case 'signed-in': {
      const { me } = phase
      if (me.memberships.length === 0) {
        return <NoIssuer me={me} onRetry={() => void enter()} onSignOut={leave} />
      }
      return (
        <Router>
          <Route
            path={`${BASE}:issuerId/:mode/*`}
            component={IssuerArea}
            me={me}
            onSignOut={leave}
          />
          <Route
            path={`${BASE}:issuerId/:mode?`}
            component={IssuerArea}
            me={me}
            onSignOut={leave}
          />
          <Route default component={Redirect} to={homeOf(me)} />
        </Router>
      )
    }
  }
}

export const App = () => (
  <LocationProvider scope={BASE}>
    <Console />
  </LocationProvider>
)
