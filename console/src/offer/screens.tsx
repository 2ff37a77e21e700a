import type { ComponentChildren, RefObject } from 'preact'

/**
 * The two screens the recipient's pages (offer, holdings) share around their own: waiting for the
 * first answer, and a failure that is no field's with a way to try again. The heading takes the
 * focus when the screen shows (the page's effect), so a screen reader reads where it is.
 */
/** The page around a screen: the service's name on top, the screen in the main landmark. */
export const RecipientPage = ({
  wide,
  children,
}: {
  wide?: boolean
  children: ComponentChildren
}) => (
  <>
    <header class="offer-top">
      <span class="brand">Virtual Shares</span>
    </header>
    <main id="main" class={wide ? 'offer-main holdings-main' : 'offer-main'}>
      {children}
    </main>
  </>
)

const LoadingScreen = ({ title, text }: { title: string; text: string }) => (
  <>
    <h1>{title}</h1>
    <p role="status">{text}</p>
  </>
)

const FailedScreen = ({
  title,
  message,
  heading,
  retry,
}: {
  title: string
  message: string
  heading: RefObject<HTMLHeadingElement | null>
  retry: () => void
}) => (
  <>
    <h1 ref={heading} tabIndex={-1}>
      {title}
    </h1>
    <p class="alert" role="alert">
      {message}
    </p>
    <button type="button" onClick={retry}>
      Try again
    </button>
  </>
)

/** The loading and failed screens of a page's screen, when it is at one of them. */
export const WaitOrFail = ({
  screen,
  title,
  waiting,
  heading,
  retry,
}: {
  screen: { kind: string; message?: string }
  title: string
  waiting: string
  heading: RefObject<HTMLHeadingElement | null>
  retry: () => void
}) =>
  screen.kind === 'loading' ? (
    <LoadingScreen title={title} text={waiting} />
  ) : screen.kind === 'failed' ? (
    <FailedScreen title={title} message={screen.message ?? ''} heading={heading} retry={retry} />
  ) : null
