import { useEffect, useMemo, useState } from 'preact/hooks'
import { getJson, type Me, type Mode, SignedOut } from './api'
import type { AuthenticationResult } from './cognito'
import { loadConfig } from './config'
import { AccountPage } from './pages/account'
import { AuditPage } from './pages/audit'
import { AcceptInvitationPage, ForgotPasswordPage, SignInPage } from './pages/auth'
import { KeysPage } from './pages/keys'
import { ProgramPage } from './pages/program'
import { ProgramsPage } from './pages/programs'
import { BatchPage, SendManyPage } from './pages/send-many'
import { TeamPage } from './pages/team'
import { Link, navigate, usePath } from './router'
import { type Scope, ScopeContext, scopePath } from './scope'
import { hasSession, onSessionEnded, refreshNow, signOut, startSession } from './session'
import { Alert, errorText, PageTitle } from './ui'

const PUBLIC = new Set(['sign-in', 'accept', 'forgot-password'])
const LAST_ISSUER = 'vs.console.issuer'

type Phase =
  | { kind: 'starting' }
  | { kind: 'failed'; message: string }
  | { kind: 'signed-out'; notice?: string }
  | { kind: 'signed-in'; me: Me }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Who the person is; a membership added a moment ago may show a little late (an index). */
const loadMe = async () => {
  let me = await getJson<Me>('/manage/me')
  if (me.memberships.length === 0) {
    await sleep(1500)
    me = await getJson<Me>('/manage/me')
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
      This page does not exist, or you have no access to it.{' '}
      <Link to={home}>Go to the programs</Link>
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

const Shell = ({
  scope,
  section,
  rest,
  onSignOut,
}: {
  scope: Scope
  section: string
  rest: string[]
  onSignOut: () => void
}) => {
  const nav = [
    { section: 'programs', label: 'Programs' },
    { section: 'keys', label: 'API keys' },
    { section: 'team', label: 'Team' },
    { section: 'audit', label: 'Audit log' },
  ]
  let page = <NotFound home={scope.at('programs')} />
  if (section === 'programs' && rest.length === 0) page = <ProgramsPage />
  else if (section === 'programs' && rest.length === 1)
    page = <ProgramPage programId={rest[0] as string} />
  else if (section === 'programs' && rest.length === 2 && rest[1] === 'send-many') {
    page = <SendManyPage programId={rest[0] as string} />
  } else if (section === 'programs' && rest.length === 3 && rest[1] === 'batches') {
    page = <BatchPage programId={rest[0] as string} batchId={rest[2] as string} />
  } else if (section === 'keys' && rest.length === 0) page = <KeysPage />
  else if (section === 'team' && rest.length === 0) page = <TeamPage />
  else if (section === 'audit' && rest.length === 0) page = <AuditPage />
  else if (section === 'account' && rest.length === 0) page = <AccountPage />

  const switchMode = (mode: Mode) =>
    navigate(
      scope.at(
        section === 'programs' || (!nav.some((n) => n.section === section) && section !== 'account')
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
                  navigate(scopePath(issuerId, scope.mode, 'programs'))
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
            <Link
              to={scope.at('account')}
              aria-current={section === 'account' ? 'page' : undefined}
            >
              Your account
            </Link>
            <button type="button" onClick={onSignOut}>
              Sign out
            </button>
          </span>
        </div>
        <nav aria-label="Console">
          <ul>
            {nav.map((item) => (
              <li key={item.section}>
                <Link
                  to={scope.at(item.section)}
                  aria-current={item.section === section ? 'page' : undefined}
                >
                  {item.label}
                </Link>
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
      <main id="main">{page}</main>
    </ScopeContext.Provider>
  )
}

export const App = () => {
  const path = usePath()
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
    navigate('sign-in')
  }

  const segments = path.split('/').filter(Boolean)
  const me = phase.kind === 'signed-in' ? phase.me : undefined
  const membership = me?.memberships.find((m) => m.issuerId === segments[0])
  const modeSegment = segments[1]
  const mode: Mode = modeSegment === 'live' ? 'LIVE' : 'TEST'

  // Where a signed-in person lands: their issuer's programs, in Test mode.
  useEffect(() => {
    if (!me || me.memberships.length === 0) return
    if (segments.length === 0 || PUBLIC.has(segments[0] as string)) {
      navigate(homeOf(me), { replace: true })
    } else if (membership && modeSegment !== 'test' && modeSegment !== 'live') {
      navigate(scopePath(membership.issuerId, 'TEST', segments.slice(1).join('/') || 'programs'), {
        replace: true,
      })
    } else if (membership) {
      rememberIssuer(membership.issuerId)
    }
  })

  const scope = useMemo<Scope | undefined>(() => {
    if (!me || !membership) return undefined
    return {
      email: me.email ?? '',
      issuerId: membership.issuerId,
      issuerName: membership.issuerName ?? membership.issuerId,
      role: membership.role,
      mode,
      memberships: me.memberships,
      at: (section: string, m: Mode = mode) => scopePath(membership.issuerId, m, section),
    }
  }, [me, membership, mode])

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
      if (segments[0] === 'accept') return <AcceptInvitationPage onSignedIn={signedIn} />
      if (segments[0] === 'forgot-password') return <ForgotPasswordPage onSignedIn={signedIn} />
      return <SignInPage onSignedIn={signedIn} notice={phase.notice} />
    case 'signed-in': {
      if (phase.me.memberships.length === 0) {
        return <NoIssuer me={phase.me} onRetry={() => void enter()} onSignOut={leave} />
      }
      if (
        !scope ||
        modeSegment === undefined ||
        (modeSegment !== 'test' && modeSegment !== 'live')
      ) {
        if (segments.length > 0 && !PUBLIC.has(segments[0] as string) && !membership) {
          return (
            <main id="main" class="auth">
              <NotFound home={homeOf(phase.me)} />
            </main>
          )
        }
        return (
          <main id="main" class="auth">
            <p role="status">Loading…</p>
          </main>
        )
      }
      return (
        <Shell
          scope={scope}
          section={segments[2] ?? 'programs'}
          rest={segments.slice(3)}
          onSignOut={leave}
        />
      )
    }
  }
}
