import type { Mode } from '../domain/api-key'
import { DEFAULT_OFFER_DAYS } from '../domain/grant-lifecycle'
import { showBidiControls } from '../domain/text-rules'

/**
 * The offer e-mail and its reminder, rendered from a grant, its program and a link: one pure
 * function for every place that shows it (the offer mailer's SES message, the TEST inbox, the
 * local mail sink, and the console's preview before "send one"), so what the issuer previews is
 * what the recipient gets.
 *
 * The text a recipient reads comes from other people (a reason, names, a program's description),
 * so in the HTML every piece of it is escaped and wrapped in `<bdi>` (a right-to-left name cannot
 * reorder the sentence around it), and in both parts a bidirectional control stored before the
 * text rules existed is written out (`\u202E`) instead of reordering the rest of the message.
 * No remote images, no scripts, inline styles only: what mail clients render, and nothing that
 * tells a sender when a message was opened.
 */

export type OfferMailKind = 'offer' | 'reminder'

export type OfferMailInput = {
  kind: OfferMailKind
  mode: Mode
  recipient: { email: string; name?: string | undefined }
  /** Who grants: the issuer's name when known; the program's name otherwise. */
  issuerName?: string | undefined
  program: { name: string; description?: string | undefined }
  amount: number
  reason: string
  /** End of the offer window (ISO). */
  expiresAt: string
  /** `<origin>/offer#t=<token>` (offerLink), or the preview's placeholder. */
  link: string
}

export type RenderedMail = { subject: string; text: string; html: string }

/** The link of an offer: the token in the fragment, so it never reaches a server log or a Referer. */
export const offerLink = (origin: string, token: string) =>
  `${origin.replace(/\/+$/, '')}/offer#t=${encodeURIComponent(token)}`

/** What the preview links to instead of a token: nothing is issued before the grant exists. */
export const PREVIEW_TOKEN = 'preview'

// C0/C1 controls and U+2028/U+2029 (a line break inside a name would start a new line of the
// mail, or a header): the text rules refuse them now, but a name stored before may hold them.
const CONTROLS = /[\p{Cc}\u2028\u2029]+/gu

/** One line of someone else's text: controls become a space, bidi controls are written out. */
export const plain = (value: string) => showBidiControls(value).replace(CONTROLS, ' ').trim()

/** Someone else's text in a paragraph: line breaks kept, other controls removed. */
const plainBlock = (value: string) =>
  value
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line) => plain(line))
    .join('\n')
    .trim()

export const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  )

/** Someone else's text (made plain) in the HTML: escaped, isolated from the text around it. */
export const isolated = (value: string) => `<bdi>${escapeHtml(value)}</bdi>`

const shares = (amount: number) =>
  `${new Intl.NumberFormat('en-US').format(amount)} ${amount === 1 ? 'share' : 'shares'}`

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/** `26 December 2026, 17:16 UTC`: one unambiguous form, the same on every ICU build. */
export const formatExpiry = (iso: string) => {
  const d = new Date(iso)
  const two = (n: number) => String(n).padStart(2, '0')
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`
}

const grantorOf = (input: OfferMailInput) => input.issuerName ?? input.program.name

/**
 * A mail's HTML document around `body`: the page frame every message of the service shares, and
 * the TEST note first when there is one. Inline styles only (what mail clients render).
 */
export const mailDocument = (subject: string, testNote: string | undefined, body: string) =>
  `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f5;">
<div style="max-width:560px;margin:0 auto;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:15px;line-height:1.5;color:#18181b;background:#ffffff;">
${testNote ? `<p style="margin:0 0 16px 0;padding:8px 12px;background:#fef3c7;color:#78350f;border-radius:4px;">${escapeHtml(testNote)}</p>\n` : ''}${body}</div>
</body>
</html>
`

/** The link as a button, and as text to copy for clients that show no button. */
export const mailButton = (link: string, label: string) =>
  `<p style="margin:0 0 24px 0;"><a href="${escapeHtml(link)}" style="display:inline-block;padding:12px 20px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:4px;font-weight:bold;">${escapeHtml(label)}</a></p>
<p style="margin:0 0 16px 0;font-size:13px;color:#555555;">Or copy this link into your browser: <span style="word-break:break-all;">${escapeHtml(link)}</span></p>
`

export const renderOfferMail = (input: OfferMailInput): RenderedMail => {
  const grantor = plain(grantorOf(input))
  const amount = shares(input.amount)
  const expiry = formatExpiry(input.expiresAt)
  const test = input.mode === 'TEST'
  const subject = `${test ? '[TEST] ' : ''}${
    input.kind === 'reminder'
      ? `Reminder: your offer of ${amount} from ${grantor} expires ${expiry}`
      : `${grantor} offers you ${amount}`
  }`
  const name = input.recipient.name === undefined ? undefined : plain(input.recipient.name)
  const greeting = name === undefined || name === '' ? 'Hello,' : `Hello ${name},`
  const lead =
    input.kind === 'reminder'
      ? `This is a reminder: ${grantor} has offered you ${amount}, and the offer is still open.`
      : `${grantor} offers you ${amount}.`
  const description =
    input.program.description === undefined ? undefined : plainBlock(input.program.description)
  const testNote = test
    ? 'This is a TEST offer: it was written to the issuer\u2019s TEST inbox and never e-mailed to anyone.'
    : undefined

  const text = [
    ...(testNote ? [testNote, ''] : []),
    greeting,
    '',
    lead,
    '',
    // Each piece of someone else's text on a line of its own: a line ends any right-to-left run.
    'Reason:',
    plainBlock(input.reason),
    '',
    'Program:',
    plain(input.program.name),
    ...(description ? ['', description] : []),
    '',
    `The offer expires on ${expiry}. To see it, and to accept or decline it, open:`,
    input.link,
    '',
    'The link is yours alone: do not forward this e-mail. If you did not expect it, you can ignore it; the offer lapses on its own.',
    '',
  ].join('\n')

  const p = 'margin:0 0 16px 0;'
  const label = 'margin:0 0 4px 0;font-size:13px;color:#555555;'
  const html = mailDocument(
    subject,
    testNote,
    `<p style="${p}">${name === undefined || name === '' ? 'Hello,' : `Hello ${isolated(name)},`}</p>
<p style="${p}font-size:18px;">${
      input.kind === 'reminder'
        ? `This is a reminder: ${isolated(grantor)} has offered you <strong>${escapeHtml(amount)}</strong>, and the offer is still open.`
        : `${isolated(grantor)} offers you <strong>${escapeHtml(amount)}</strong>.`
    }</p>
<p style="${label}">Reason</p>
<p style="${p}white-space:pre-line;" dir="auto">${isolated(plainBlock(input.reason))}</p>
<p style="${label}">Program</p>
<p style="${p}" dir="auto">${isolated(plain(input.program.name))}</p>
${description ? `<p style="${p}white-space:pre-line;color:#3f3f46;" dir="auto">${isolated(description)}</p>\n` : ''}<p style="${p}">The offer expires on <strong>${escapeHtml(expiry)}</strong>.</p>
${mailButton(input.link, 'See your offer')}<p style="margin:0;font-size:13px;color:#555555;">The link is yours alone: do not forward this e-mail. If you did not expect it, you can ignore it; the offer lapses on its own.</p>
`,
  )
  return { subject, text, html }
}

/**
 * The console's preview of the offer e-mail before "send one": the same renderer, a placeholder
 * link (no token exists before the grant), the window the program would give the grant today.
 */
export const renderOfferPreview = (input: {
  origin: string
  mode: Mode
  recipient: { email: string; name?: string | undefined }
  issuerName?: string | undefined
  program: { name: string; description?: string | undefined; offerDays?: number | undefined }
  amount: number
  reason: string
  now: number
}): RenderedMail =>
  renderOfferMail({
    kind: 'offer',
    mode: input.mode,
    recipient: input.recipient,
    issuerName: input.issuerName,
    program: input.program,
    amount: input.amount,
    reason: input.reason,
    expiresAt: new Date(
      input.now + (input.program.offerDays ?? DEFAULT_OFFER_DAYS) * 24 * 60 * 60 * 1000,
    ).toISOString(),
    link: offerLink(input.origin, PREVIEW_TOKEN),
  })
