import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { escapeHtml } from '../functions/identity/invitation-message'

/**
 * The local mail sink: every message the emulated user pool would e-mail (invitations, resent
 * invitations, password-reset codes) is appended to one JSON-lines file instead, by the emulator's
 * process (local/cognito-local-host.ts), before the Cognito call that sent it returns. `npm start`
 * prints each one and serves the file at `GET /_local/mail` and `GET /_local/mail.json`; any process
 * that invites through the emulator (the server, the admin CLI, a test) lands in the same file.
 */
export type Mail = {
  to: string
  subject: string
  /** The plain-text body, placeholders filled: what the person reads. */
  text: string
  /** ISO time the emulator sent it. */
  sentAt: string
}

/** Appends one message; synchronous, so it is on disk before the emulator answers the call. */
export const appendMail = (file: string, mail: Mail) => {
  appendFileSync(file, `${JSON.stringify(mail)}\n`, { mode: 0o600 })
}

const isMail = (value: unknown): value is Mail => {
  if (typeof value !== 'object' || value === null) return false
  const mail = value as Record<string, unknown>
  return ['to', 'subject', 'text', 'sentAt'].every((key) => typeof mail[key] === 'string')
}

/** Every message in the file, newest first (an unreadable line is skipped, never fatal). */
export const readMail = (file: string): Mail[] => {
  if (!existsSync(file)) return []
  const mails: Mail[] = []
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    try {
      const parsed: unknown = JSON.parse(line)
      if (isMail(parsed)) mails.push(parsed)
    } catch {
      // A line cut short by a crash mid-write: the others still show.
    }
  }
  return mails.reverse()
}

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

/** How `npm start` prints a message as it arrives. */
export const formatMailForTerminal = (mail: Mail) => {
  const rule = '-'.repeat(72)
  return `${rule}
Mail to ${mail.to} (${mail.sentAt}), also at /_local/mail
Subject: ${mail.subject}

${mail.text.trimEnd()}
${rule}`
}
