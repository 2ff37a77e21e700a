import { MailFrame } from '../mail-frame'
import { useScope } from '../scope'
import { Alert, Pager, PageTitle, useLoad, usePager } from '../ui'
import { Time } from '../ui-format'

/**
 * The issuer's TEST inbox: the offer e-mail of its TEST grants, each as rendered, newest first.
 * TEST grants never e-mail anyone; the link of each message opens the recipient's page, so the
 * whole flow can be walked from here.
 */
export const InboxPage = () => {
  const scope = useScope()
  const pager = usePager()
  const { data, error, loading, reload } = useLoad(
    () => scope.api.inbox({ cursor: pager.cursor }),
    [scope.api, pager.cursor],
  )
  const messages = data?.data ?? []
  return (
    <>
      <PageTitle title="TEST inbox">TEST inbox</PageTitle>
      <p>
        The offer e-mails of your TEST grants land here instead of the recipient’s mailbox: TEST
        grants never e-mail anyone. Open a message’s link to walk the recipient’s side. Messages are
        kept 30 days.
      </p>
      <p>
        <button type="button" onClick={() => void reload()}>
          Refresh
        </button>
      </p>
      <Alert>{error}</Alert>
      {loading && !data ? <p role="status">Loading the inbox…</p> : null}
      {!loading && messages.length === 0 ? (
        <p>No messages yet. Send a grant in a TEST program to see its offer e-mail here.</p>
      ) : null}
      <ol class="inbox">
        {messages.map((message) => (
          <li key={message.id}>
            <article class="panel" aria-labelledby={`m-${message.id}`}>
              <h2 id={`m-${message.id}`}>{message.subject}</h2>
              <p class="hint">
                To {message.to} · <Time iso={message.createdAt} /> ·{' '}
                <a href={scope.at(`grants/${message.grantId}`, 'TEST')}>Grant {message.grantId}</a>
              </p>
              <MailFrame html={message.html} title={`E-mail: ${message.subject}`} />
              <details>
                <summary>Plain-text version</summary>
                <pre class="mail-text">{message.text}</pre>
              </details>
            </article>
          </li>
        ))}
      </ol>
      <Pager label="Inbox pages" pager={pager} nextCursor={data?.nextCursor} />
    </>
  )
}
