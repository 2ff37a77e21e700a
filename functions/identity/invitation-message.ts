import { PASSWORD_POLICY, PRODUCT_NAME } from './identity-settings'

/**
 * The e-mails Cognito sends on our behalf, rendered from placeholders. Pure: the CustomMessage
 * trigger (custom-message.handler.ts) hands the result to Cognito, and the local mail sink will show
 * the same text, so both say exactly the same thing.
 *
 * Cognito fills the placeholders itself after the trigger returns (`{username}` with the user name,
 * `{####}` with the temporary password or the code). For `CustomMessage_AdminCreateUser` the message
 * must contain both `request.usernameParameter` and `request.codeParameter`, otherwise Cognito
 * silently sends its default invitation instead (Cognito Developer Guide, "Custom message Lambda
 * trigger"). Every other character of the body must be a letter, mark, symbol, number, punctuation
 * or white space: the service checks the message against
 * `[\p{L}\p{M}\p{S}\p{N}\p{P}\s*]*\{####\}[\p{L}\p{M}\p{S}\p{N}\p{P}\s*]*`.
 */

export type MessageTrigger = 'CustomMessage_AdminCreateUser' | 'CustomMessage_ForgotPassword'

export type MessageInput = {
  /** Cognito's `triggerSource`; only the two of MessageTrigger are rendered. */
  triggerSource: string
  /** The console's address (`-c consoleUrl=...`), already checked by parseConsoleUrl. */
  consoleUrl: string
  /** `request.usernameParameter`: the user name placeholder, `{username}` (AdminCreateUser only). */
  usernameParameter: string | null
  /** `request.codeParameter`: the temporary password's or the code's placeholder, `{####}`. */
  codeParameter: string
  /** The user's e-mail address (`userAttributes.email`), if known: the name people sign in with. */
  email?: string | undefined
  /** The issuer the user is invited to manage, if the inviter said (`clientMetadata.issuerName`). */
  issuerName?: string | undefined
  /**
   * Every issuer with a pending invitation for this person, the inviting one first
   * (`clientMetadata.issuerNames`, read by issuerNamesOf). A resend or a second issuer's invitation
   * replaces the temporary password of every earlier e-mail, so the newest one names them all.
   * Absent: `issuerName` alone.
   */
  issuerNames?: readonly string[] | undefined
}

export type RenderedMessage = { subject: string; text: string; html: string }

const RENDERED: ReadonlySet<string> = new Set<MessageTrigger>([
  'CustomMessage_AdminCreateUser',
  'CustomMessage_ForgotPassword',
])

export const isRenderedTrigger = (triggerSource: string): triggerSource is MessageTrigger =>
  RENDERED.has(triggerSource)

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Text and attribute values alike: the five characters that can end or open markup. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)

/**
 * A value someone typed (an issuer's name, an address) made safe for one line of a message: only
 * characters Cognito accepts in a body (no control or format characters, which would make it
 * refuse the whole message), white space collapsed, no line breaks (it also goes into the
 * subject), at most `max` characters.
 */
export const oneLine = (value: string, max = 100) => {
  const cleaned = value
    .replace(/[^\p{L}\p{M}\p{S}\p{N}\p{P}\p{Zs}]/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim()
  const chars = [...cleaned]
  return chars.length <= max ? cleaned : `${chars.slice(0, max - 1).join('')}…`
}

type Paragraph = { text: string; html: string }

/** Plain text and HTML from the same parts: `t` is text (escaped in HTML), `raw` already HTML. */
const para = (...parts: ({ t: string } | { raw: string; text: string })[]): Paragraph => ({
  text: parts.map((p) => ('t' in p ? p.t : p.text)).join(''),
  html: parts.map((p) => ('t' in p ? escapeHtml(p.t) : p.raw)).join(''),
})

/**
 * A placeholder on its own, never next to punctuation: Cognito puts the temporary password there
 * as it is, and a password that ends in `.` must not run into a full stop.
 */
const code = (placeholder: string) => ({
  raw: `<code style="font-size:1.1em">${escapeHtml(placeholder)}</code>`,
  text: placeholder,
})

const link = (url: string) => ({
  raw: `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`,
  text: url,
})

const renderDocument = (subject: string, paragraphs: Paragraph[]): RenderedMessage => ({
  subject,
  text: `${paragraphs.map((p) => p.text).join('\n\n')}\n`,
  html: [
    '<!DOCTYPE html>',
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#1f2328">',
    ...paragraphs.map((p) => `<p>${p.html.replace(/\n/g, '<br>\n')}</p>`),
    '</body>',
    '</html>',
  ].join('\n'),
})

/**
 * Cognito refuses an `emailSubject` over 140 characters (the length limit of the pool's e-mail
 * subjects, `EmailSubject` in the API reference; counted here in UTF-16 code units, as the service's
 * Java strings count, so an emoji counts two). The issuer's name is what gets shortened.
 */
export const SUBJECT_MAX = 140

/** `before + name + after` in at most `max` UTF-16 code units, the name cut (with `…`) to fit. */
export const fitSubject = (before: string, name: string, after: string, max = SUBJECT_MAX) => {
  const room = max - before.length - after.length
  let chars = [...name]
  if (chars.join('').length > room) {
    chars = chars.slice(0, Math.max(0, room - 1))
    while (chars.join('').length > room - 1) chars.pop()
    chars.push('…')
  }
  return `${before}${chars.join('')}${after}`
}

/** At most this many issuers are listed by name in one invitation; the rest are counted. */
export const MAX_LISTED_ISSUERS = 20

/**
 * The issuer names an inviter put in ClientMetadata: `issuerNames` (a JSON array of strings, the
 * inviting issuer first) when present and well-formed, else `issuerName` alone. ClientMetadata is
 * a map of strings (Cognito passes it to the trigger as it came), hence the JSON.
 */
export const issuerNamesOf = (
  metadata: Record<string, string> | undefined | null,
): string[] | undefined => {
  const raw = metadata?.issuerNames
  if (typeof raw === 'string') {
    try {
      const parsed: unknown = JSON.parse(raw)
      if (Array.isArray(parsed)) {
        const names = parsed.filter((n): n is string => typeof n === 'string' && n.trim() !== '')
        if (names.length > 0) return names
      }
    } catch {
      // Not JSON: fall back to the single name.
    }
  }
  const single = metadata?.issuerName
  return typeof single === 'string' && single.trim() !== '' ? [single] : undefined
}

/** ClientMetadata for an invitation naming `issuerNames` (the inviting issuer first). */
export const invitationMetadata = (issuerNames: readonly string[]): Record<string, string> => ({
  issuerName: issuerNames[0] ?? '',
  issuerNames: JSON.stringify(issuerNames),
})

const invitation = (input: MessageInput): RenderedMessage => {
  const names = [
    ...new Set(
      (input.issuerNames ?? (input.issuerName ? [input.issuerName] : []))
        .map((name) => oneLine(name))
        .filter((name) => name !== ''),
    ),
  ]
  const [issuer = ''] = names
  const email = input.email ? oneLine(input.email, 254) : ''
  const others = names.length - 1
  const subject =
    issuer === ''
      ? `You are invited to the ${PRODUCT_NAME} console`
      : fitSubject(
          'You are invited to manage ',
          issuer,
          others > 0
            ? ` and ${others} other issuer${others === 1 ? '' : 's'} on ${PRODUCT_NAME}`
            : ` on ${PRODUCT_NAME}`,
        )
  const listed = names.slice(0, MAX_LISTED_ISSUERS)
  const unlisted = names.length - listed.length
  const days = PASSWORD_POLICY.temporaryPasswordValidityDays
  return renderDocument(subject, [
    para(
      { t: 'Hello,' },
      { t: '\n' },
      names.length > 1
        ? {
            t: `you have been invited to manage these issuers in the ${PRODUCT_NAME} console:\n${listed.map((name) => `- ${name}`).join('\n')}${unlisted > 0 ? `\n- and ${unlisted} more` : ''}`,
          }
        : issuer
          ? { t: `you have been invited to manage ${issuer} in the ${PRODUCT_NAME} console.` }
          : { t: `you have been invited to the ${PRODUCT_NAME} console.` },
    ),
    ...(names.length > 1
      ? [
          para({
            t: 'This e-mail replaces every earlier invitation: its temporary password opens all of them.',
          }),
        ]
      : []),
    para({ t: 'Sign in at' }, { t: '\n' }, link(input.consoleUrl)),
    para(
      { t: 'User name: ' },
      code(input.usernameParameter ?? '{username}'),
      { t: '\n' },
      { t: 'Temporary password: ' },
      code(input.codeParameter),
    ),
    para(
      ...(email
        ? [{ t: `You can also sign in with your e-mail address, ${email}.` }, { t: ' ' }]
        : []),
      {
        t: `The temporary password works for ${days} days. When you first sign in you choose your own password (at least ${PASSWORD_POLICY.minLength} characters); you can then turn on two-step sign-in with an authenticator app.`,
      },
    ),
    para({
      t: 'If you did not expect this invitation, ignore this e-mail: nothing happens until someone signs in with it.',
    }),
  ])
}

const forgotPassword = (input: MessageInput): RenderedMessage => {
  const email = input.email ? oneLine(input.email, 254) : ''
  const subject = `Your ${PRODUCT_NAME} password reset code`
  return renderDocument(subject, [
    para({
      t: email
        ? `Someone asked to reset the password of ${email} in the ${PRODUCT_NAME} console.`
        : `Someone asked to reset your password in the ${PRODUCT_NAME} console.`,
    }),
    para({ t: 'Your code: ' }, code(input.codeParameter)),
    para({ t: 'Enter it in the console at' }, { t: '\n' }, link(input.consoleUrl)),
    para({
      t: 'If you did not ask for this, ignore this e-mail: your password stays as it is.',
    }),
  ])
}

/**
 * The e-mail to a person who already has an account (a password of their own) and has just been
 * added to another issuer: who added them, to which issuer, with which role, and where to sign in.
 * No password and no code: they sign in as they always do. Sent by the service's own mailer
 * (functions/mail), not by Cognito, which only mails its own kinds of messages.
 */
export const renderAddedMessage = (input: {
  consoleUrl: string
  email: string
  issuerName: string
  role: string
  /** Who added them: a person's e-mail address, or "operator CLI". */
  addedBy: string
}): RenderedMessage => {
  const issuer = oneLine(input.issuerName)
  const email = oneLine(input.email, 254)
  const addedBy = oneLine(input.addedBy, 254)
  const subject = fitSubject('You have been added to ', issuer, ` on ${PRODUCT_NAME}`)
  return renderDocument(subject, [
    para(
      { t: 'Hello,' },
      { t: '\n' },
      {
        t: `${addedBy} added you to ${issuer} as ${oneLine(input.role, 20)} in the ${PRODUCT_NAME} console.`,
      },
    ),
    para(
      { t: `Sign in with your e-mail address, ${email}, and your own password at` },
      { t: '\n' },
      link(input.consoleUrl),
    ),
    para({
      t: `If you did not expect this, ask ${addedBy} about it, or ignore this e-mail: nothing changes for your other issuers.`,
    }),
  ])
}

/**
 * The message for a trigger source we write ourselves, or undefined for any other (sign-up
 * confirmation, attribute verification, MFA codes...), which Cognito then sends unchanged.
 */
export const renderMessage = (input: MessageInput): RenderedMessage | undefined => {
  if (!isRenderedTrigger(input.triggerSource)) return undefined
  return input.triggerSource === 'CustomMessage_AdminCreateUser'
    ? invitation(input)
    : forgotPassword(input)
}
