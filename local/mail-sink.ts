import { appendFileSync, existsSync, readFileSync } from 'node:fs'

/**
 * The local mail sink: every message the emulated user pool would e-mail (invitations, resent
 * invitations, password-reset codes) is appended to one JSON-lines file instead, by the emulator's
 * process (local/cognito-local-host.ts), before the Cognito call that sent it returns. `npm start`
 * prints each one and serves the file at `GET /_local/mail` and `GET /_local/mail.json`
 * (local/dev-pages/mail-viewer.ts); any process that invites through the emulator (the server,
 * the admin CLI, a test) lands in the same file.
 */
export type Mail = {
  to: string
  subject: string
  /** The plain-text body, placeholders filled: what the person reads. */
  text: string
  /** The HTML part, for the service's own mail that has one (the offer e-mail). */
  html?: string
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

/** How `npm start` prints a message as it arrives. */
export const formatMailForTerminal = (mail: Mail) => {
  const rule = '-'.repeat(72)
  return `${rule}
Mail to ${mail.to} (${mail.sentAt}), also at /_local/mail
Subject: ${mail.subject}

${mail.text.trimEnd()}
${rule}`
}
