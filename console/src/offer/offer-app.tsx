import type { RefObject } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { isGrantOpen } from '../../../functions/domain/grant-lifecycle'
import { GrantCard } from './grant-card'
import type { GrantActions } from './grant-steps'
import { LinkScreen } from './link-form'
import {
  accept,
  decline,
  identify,
  Problem,
  problemText,
  type RecipientView,
  requestLink,
  viewOffer,
} from './offer-api'
import { RecipientPage, WaitOrFail } from './screens'

/**
 * The recipient's page (`/offer#t=<token>`): what the link offers, then the person's own steps
 * (identify, then accept or decline), each a POST of theirs; opening the page changes nothing. A
 * link that is unknown, used or past its offer shows the form that asks for a new one, whose answer
 * is always the same.
 */
type Screen =
  | { kind: 'loading' }
  | { kind: 'offer'; view: RecipientView }
  | { kind: 'link'; invalid: boolean }
  | { kind: 'failed'; message: string }

const TITLES = {
  loading: 'Your share offer',
  offer: 'Your share offer',
  link: 'Ask for a new link',
  failed: 'Your share offer',
} as const

/**
 * The new answer, with the grants the page showed in a final state that the answer leaves out
 * (it lists the open grants and the one just changed): what the person decided a moment ago stays
 * on the page. A final state never changes, so what the page knows of it stays true.
 */
const keepDecided = (before: RecipientView, after: RecipientView): RecipientView => {
  const shown = new Set(after.grants.map((g) => g.grantId))
  const decided = before.grants.filter((g) => !shown.has(g.grantId) && !isGrantOpen(g.state))
  if (decided.length === 0) return after
  const order = new Map(before.grants.map((g, i) => [g.grantId, i]))
  return {
    ...after,
    grants: [...after.grants, ...decided].sort(
      (a, b) => (order.get(a.grantId) ?? -1) - (order.get(b.grantId) ?? -1),
    ),
  }
}

export const OfferApp = ({ token }: { token: string | undefined }) => {
  const [screen, setScreen] = useState<Screen>(
    token ? { kind: 'loading' } : { kind: 'link', invalid: false },
  )
  const heading = useRef<HTMLHeadingElement>(null)

  const load = async () => {
    if (!token) return
    setScreen({ kind: 'loading' })
    try {
      const view = await viewOffer(token)
      setScreen(view.grants.length > 0 ? { kind: 'offer', view } : { kind: 'link', invalid: true })
    } catch (error) {
      if (error instanceof Problem && error.status === 404)
        setScreen({ kind: 'link', invalid: true })
      else setScreen({ kind: 'failed', message: problemText(error) })
    }
  }

  // The link is read once, on arrival.
  useEffect(() => {
    void load()
  }, [])

  // Each new screen: its title, and the focus on its heading (a screen reader reads where it is).
  useEffect(() => {
    document.title = `${TITLES[screen.kind]} · Virtual Shares`
    if (screen.kind !== 'loading') heading.current?.focus()
  }, [screen.kind])

  return (
    <RecipientPage>
      <WaitOrFail
        screen={screen}
        title="Your share offer"
        waiting="Loading your offer…"
        heading={heading}
        retry={() => void load()}
      />
      {screen.kind === 'link' && (
        <LinkScreen
          title="Ask for a new link"
          heading={heading}
          label="Ask for a new link"
          submit="Send me a new link"
          request={async (email) => (await requestLink(email)).message}
        >
          <p class="lede">
            {screen.invalid
              ? 'This link is not valid any more: it may have been replaced by a newer one, or the offer may have ended. Enter your e-mail address and, if an offer for it is still open, we send you a new link.'
              : 'Open the link in the e-mail that told you about your offer, or enter your e-mail address to get a new link.'}
          </p>
        </LinkScreen>
      )}
      {screen.kind === 'offer' && (
        <OfferView
          view={screen.view}
          token={token as string}
          heading={heading}
          onView={(view) => setScreen({ kind: 'offer', view: keepDecided(screen.view, view) })}
          onInvalid={() => setScreen({ kind: 'link', invalid: true })}
        />
      )}
    </RecipientPage>
  )
}

const OfferView = ({
  view,
  token,
  heading,
  onView,
  onInvalid,
}: {
  view: RecipientView
  token: string
  heading: RefObject<HTMLHeadingElement | null>
  onView: (view: RecipientView) => void
  onInvalid: () => void
}) => {
  // Each step sends the link's token; its answer is the page's new view.
  const actions: GrantActions = {
    identify: async (body) => onView(await identify({ token, ...body })),
    accept: async (body) => onView(await accept({ token, ...body })),
    decline: async (body) => onView(await decline({ token, ...body })),
    reload: async () => onView(await viewOffer(token)),
    isLost: (problem) => problem.status === 404,
    lost: onInvalid,
  }
  const several = view.grants.length > 1
  const open = view.grants.some((g) => isGrantOpen(g.state))
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        {several ? 'Your share offers' : 'Your share offer'}
      </h1>
      <p class="lede">
        For <strong>{view.email}</strong>.{' '}
        {open && several && 'Each offer below is accepted or declined on its own.'}
        {open && !several && 'Read it, confirm your details, then accept or decline.'}
      </p>
      {view.grants.map((grant) => (
        <GrantCard key={grant.grantId} grant={grant} actions={actions} />
      ))}
    </>
  )
}
