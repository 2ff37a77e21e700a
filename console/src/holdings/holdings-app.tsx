import { useEffect, useRef, useState } from 'preact/hooks'
import { LinkScreen } from '../offer/link-form'
import { Problem, problemText } from '../offer/offer-api'
import { RecipientPage, WaitOrFail } from '../offer/screens'
import {
  endSession,
  forgetSession,
  type Holdings,
  isSessionOver,
  readHoldings,
  requestSignInLink,
  startSession,
  storedSession,
} from './holdings-api'
import { HoldingsView } from './holdings-view'

/**
 * The recipient's holdings page (`/holdings`): an address asks for a sign-in link; the link
 * (`/holdings#<token>`) is exchanged once for a session of this tab; signed in, every grant to the
 * address in the link's mode, by issuer and program. A used or expired link, an ended session and
 * a sign-out all come back to the address form, each with one sentence saying why.
 */
type Why = 'start' | 'link_expired' | 'session_ended' | 'signed_out'

type Screen =
  | { kind: 'loading' }
  | { kind: 'sign-in'; why: Why }
  | { kind: 'holdings'; session: string; holdings: Holdings }
  | { kind: 'failed'; message: string }

const WHY: Record<Why, string> = {
  start:
    'Enter your e-mail address and we send you a link to sign in. It works once, within 15 minutes.',
  link_expired:
    'This sign-in link cannot be used: it was used already, or it is more than 15 minutes old. Enter your e-mail address to get a new one.',
  session_ended:
    'Your session ended after 30 minutes without activity. Enter your e-mail address to get a new sign-in link.',
  signed_out:
    'You signed out. Enter your e-mail address to get a new sign-in link when you want to come back.',
}

// The same words whatever the address: the page tells nobody which addresses hold grants.
const LINK_SENT =
  'If shares were offered to this address, a sign-in link is on its way to it. Open it within 15 minutes; it works once.'

export const HoldingsApp = ({ token }: { token: string | undefined }) => {
  const [screen, setScreen] = useState<Screen>({ kind: 'loading' })
  const heading = useRef<HTMLHeadingElement>(null)

  const signIn = (why: Why) => {
    forgetSession()
    setScreen({ kind: 'sign-in', why })
  }

  /** The holdings of a session; an ended session back to the form. */
  const show = async (session: string) => {
    try {
      setScreen({ kind: 'holdings', session, holdings: await readHoldings(session) })
    } catch (error) {
      if (isSessionOver(error)) return signIn('session_ended')
      setScreen({ kind: 'failed', message: problemText(error) })
    }
  }

  // The link's token until it is exchanged: a retry after a failure exchanges it again.
  const unused = useRef(token)

  /** Arriving (or trying again): the link's token for a session, else this tab's session. */
  const arrive = async () => {
    setScreen({ kind: 'loading' })
    if (unused.current) {
      try {
        const { session } = await startSession(unused.current)
        unused.current = undefined
        return await show(session)
      } catch (error) {
        // Used, expired or unknown: one answer (410). Anything else may pass: try again.
        if (error instanceof Problem && error.status === 410) return signIn('link_expired')
        return setScreen({ kind: 'failed', message: problemText(error) })
      }
    }
    const kept = storedSession()
    if (kept) return show(kept.session)
    setScreen({ kind: 'sign-in', why: 'start' })
  }

  // The link is read once, on arrival (main.tsx took it from the fragment).
  useEffect(() => {
    void arrive()
  }, [])

  // Each new screen: its title, and the focus on its heading (a screen reader reads where it is).
  useEffect(() => {
    document.title = `${screen.kind === 'sign-in' ? 'Sign in to your holdings' : 'Your holdings'} · Virtual Shares`
    if (screen.kind !== 'loading') heading.current?.focus()
  }, [screen.kind === 'sign-in' ? screen.why : screen.kind])

  return (
    <RecipientPage wide>
      <WaitOrFail
        screen={screen}
        title="Your holdings"
        waiting="Loading your holdings…"
        heading={heading}
        retry={() => void arrive()}
      />
      {screen.kind === 'sign-in' && (
        <LinkScreen
          title="Sign in to your holdings"
          heading={heading}
          label="Ask for a sign-in link"
          submit="Send me a sign-in link"
          request={async (email) => {
            await requestSignInLink(email)
            return LINK_SENT
          }}
        >
          <p class={screen.why === 'start' ? 'lede' : 'note'}>{WHY[screen.why]}</p>
        </LinkScreen>
      )}
      {screen.kind === 'holdings' && (
        <HoldingsView
          holdings={screen.holdings}
          session={screen.session}
          heading={heading}
          reload={() => show(screen.session)}
          sessionEnded={() => signIn('session_ended')}
          signOut={async () => {
            try {
              await endSession(screen.session)
            } catch {
              // Signed out here whatever the service says: the tab forgets the session.
            }
            signIn('signed_out')
          }}
        />
      )}
    </RecipientPage>
  )
}
