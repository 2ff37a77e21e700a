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

const invitation = (input: MessageInput): RenderedMessage => {
  const issuer = input.issuerName ? oneLine(input.issuerName) : ''
  const email = input.email ? oneLine(input.email, 254) : ''
  const subject = issuer
    ? `You are invited to manage ${issuer} on ${PRODUCT_NAME}`
    : `You are invited to the ${PRODUCT_NAME} console`
  const days = PASSWORD_POLICY.temporaryPasswordValidityDays
  return renderDocument(subject, [
    para(
      { t: 'Hello,' },
      { t: '\n' },
      issuer
        ? { t: `you have been invited to manage ${issuer} in the ${PRODUCT_NAME} console.` }
        : { t: `you have been invited to the ${PRODUCT_NAME} console.` },
    ),
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
 * The message for a trigger source we write ourselves, or undefined for any other (sign-up
 * confirmation, attribute verification, MFA codes...), which Cognito then sends unchanged.
 */
export const renderMessage = (input: MessageInput): RenderedMessage | undefined => {
  if (!isRenderedTrigger(input.triggerSource)) return undefined
  return input.triggerSource === 'CustomMessage_AdminCreateUser'
    ? invitation(input)
    : forgotPassword(input)
}
