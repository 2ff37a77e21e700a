import { escapeHtml } from '../../functions/identity/invitation-message'
import { isLoopbackHost, notLoopbackProblem } from '../loopback-host'
import { type Mail, readMail } from '../mail-sink'

/** The page `GET /_local/mail` shows: every message, newest first, all of it escaped. */
export const mailPage = (mails: readonly Mail[]) => {
  const items = mails.map(
    (mail) => `<article>
<h2>${escapeHtml(mail.subject)}</h2>
<p class="meta">To <strong>${escapeHtml(mail.to)}</strong> &middot; <time datetime="${escapeHtml(mail.sentAt)}">${escapeHtml(mail.sentAt)}</time></p>
<pre>${escapeHtml(mail.text)}</pre>
</article>`,
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Local mail (${mails.length})</title>
<style>
body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
article{border:1px solid #d0d7de;border-radius:6px;padding:0 1rem;margin:1rem 0}
h2{font-size:1.1rem}.meta{color:#57606a}pre{white-space:pre-wrap;font-size:.95rem}
</style></head>
<body><h1>Local mail</h1>
<p>What the local user pool would have e-mailed, newest first (<a href="/_local/mail.json">JSON</a>).
Nothing here leaves this machine.</p>
${items.length > 0 ? items.join('\n') : '<p>No mail yet.</p>'}
</body></html>
`
}

/**
 * The mail sink (local/mail-sink.ts), newest first, as a page (`GET /_local/mail`) and as JSON
 * (`GET /_local/mail.json`: `to`, `subject`, `text`, `sentAt`).
 */
export const serveMail = (
  method: string,
  path: string,
  host: string | undefined,
  mailFile: string | undefined,
) => {
  if (method !== 'GET' || mailFile === undefined) return undefined
  if (path !== '/_local/mail.json' && path !== '/_local/mail') return undefined
  // Temporary passwords and reset codes: never to a page that rebound its own name to us.
  if (!isLoopbackHost(host)) return notLoopbackProblem(path)
  if (path === '/_local/mail.json') {
    return {
      status: 200,
      type: 'application/json',
      body: JSON.stringify(readMail(mailFile), null, 2),
    }
  }
  return { status: 200, type: 'text/html; charset=utf-8', body: mailPage(readMail(mailFile)) }
}
