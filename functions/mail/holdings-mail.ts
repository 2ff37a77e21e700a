import type { Mode } from '../domain/api-key'
import {
  escapeHtml,
  formatExpiry,
  isolated,
  mailButton,
  mailDocument,
  plain,
  type RenderedMail,
} from './offer-mail'

/**
 * The holdings sign-in e-mail (issue 32): a link to the recipient's holdings, valid 15 minutes,
 * used once. LIVE: sent through SES, naming no issuer (the session spans every issuer). TEST:
 * written to one issuer's TEST inbox, naming that issuer, and its session shows only that issuer's
 * TEST grants. Rendered like the offer mail: someone else's text escaped and isolated.
 */
export type HoldingsMailInput = {
  mode: Mode
  /** TEST: the issuer whose TEST grants the link opens (its name, or absent). */
  issuerName?: string | undefined
  /** `<origin>/holdings#<token>` (holdingsLink). */
  link: string
  /** When the link stops working (ISO). */
  expiresAt: string
}

/** The sign-in link: the token in the fragment, so it never reaches a server log or a Referer. */
export const holdingsLink = (origin: string, token: string) =>
  `${origin.replace(/\/+$/, '')}/holdings#${encodeURIComponent(token)}`

export const renderHoldingsMail = (input: HoldingsMailInput): RenderedMail => {
  const test = input.mode === 'TEST'
  const issuer = input.issuerName === undefined ? undefined : plain(input.issuerName)
  const subject = test
    ? `[TEST] Sign in to see your TEST shares${issuer === undefined ? '' : ` from ${issuer}`}`
    : 'Sign in to see your shares'
  const expiry = formatExpiry(input.expiresAt)
  const testNote = test
    ? 'This is a TEST sign-in link: it was written to the issuer\u2019s TEST inbox and never e-mailed to anyone. It shows only this issuer\u2019s TEST grants.'
    : undefined
  const lead = 'You asked to see the shares offered to this address, and what they are worth.'
  const rules = `The link works once, until ${expiry}. If you did not ask for it, ignore this e-mail: nothing happens.`
  const text = [
    ...(testNote ? [testNote, ''] : []),
    'Hello,',
    '',
    lead,
    ...(test && issuer !== undefined ? ['', 'Issuer:', issuer] : []),
    '',
    'To sign in, open:',
    input.link,
    '',
    rules,
    '',
  ].join('\n')
  const p = 'margin:0 0 16px 0;'
  const html = mailDocument(
    subject,
    testNote,
    `<p style="${p}">Hello,</p>
<p style="${p}">${escapeHtml(lead)}</p>
${test && issuer !== undefined ? `<p style="${p}" dir="auto">Issuer: ${isolated(issuer)}</p>\n` : ''}${mailButton(input.link, 'Sign in')}<p style="margin:0;font-size:13px;color:#555555;">${escapeHtml(rules)}</p>
`,
  )
  return { subject, text, html }
}
