import {
  formatExpiry,
  offerLink,
  PREVIEW_TOKEN,
  renderOfferMail,
  renderOfferPreview,
} from '../../functions/mail/offer-mail'

/** The offer e-mail as the recipient reads it: what it says, and what other people's text cannot do to it. */
const base = {
  kind: 'offer' as const,
  mode: 'LIVE' as const,
  recipient: { email: 'ada@example.com', name: 'Ada Lovelace' },
  issuerName: 'Acme Analytics',
  program: { name: 'Early supporters', description: 'Shares for the first hundred customers.' },
  amount: 1250,
  reason: 'Thank you for the bug report',
  expiresAt: '2026-12-26T17:16:00.000Z',
  link: offerLink('https://console.example.com', 'A'.repeat(43)),
}

describe('the offer e-mail', () => {
  it('says who grants, how many shares, why, in which program, until when, and links to the offer', () => {
    const mail = renderOfferMail(base)
    expect(mail.subject).toBe('Acme Analytics offers you 1,250 shares')
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain('Acme Analytics')
      expect(part).toContain('1,250 shares')
      expect(part).toContain('Thank you for the bug report')
      expect(part).toContain('Early supporters')
      expect(part).toContain('Shares for the first hundred customers.')
      expect(part).toContain('26 December 2026, 17:16 UTC')
      expect(part).toContain(`https://console.example.com/offer#t=${'A'.repeat(43)}`)
      expect(part).toContain('Ada Lovelace')
    }
    expect(mail.html).toContain(`href="https://console.example.com/offer#t=${'A'.repeat(43)}"`)
  })

  it('names the program as the grantor when the issuer is not known, and counts one share as one', () => {
    const mail = renderOfferMail({ ...base, issuerName: undefined, amount: 1 })
    expect(mail.subject).toBe('Early supporters offers you 1 share')
  })

  it('puts the token in the fragment, which no server log or Referer carries', () => {
    const link = offerLink('https://console.example.com/', 'tok_en-1')
    expect(link).toBe('https://console.example.com/offer#t=tok_en-1')
    expect(new URL(link).pathname).toBe('/offer')
    expect(new URL(link).search).toBe('')
  })

  it('a reminder says so, with the expiry in its subject', () => {
    const mail = renderOfferMail({ ...base, kind: 'reminder' })
    expect(mail.subject).toBe(
      'Reminder: your offer of 1,250 shares from Acme Analytics expires 26 December 2026, 17:16 UTC',
    )
    expect(mail.text).toContain('still open')
  })

  it('a TEST mail is marked as one in its subject and its body', () => {
    const mail = renderOfferMail({ ...base, mode: 'TEST' })
    expect(mail.subject.startsWith('[TEST] ')).toBe(true)
    expect(mail.text).toContain('TEST offer')
    expect(mail.html).toContain('TEST offer')
  })

  it('escapes every piece of other people’s text in the HTML', () => {
    const mail = renderOfferMail({
      ...base,
      issuerName: 'Evil <b>Corp</b>',
      recipient: { email: 'x@example.com', name: '"><img src=https://tracker.example/p.gif>' },
      program: { name: 'P & <i>Q</i>', description: '<script>alert(1)</script>' },
      reason: "it's <a href='https://phish.example'>here</a>",
    })
    expect(mail.html).not.toMatch(/<script|<img|<i>|<b>|href='https:\/\/phish/i)
    expect(mail.html).toContain('Evil &lt;b&gt;Corp&lt;/b&gt;')
    expect(mail.html).toContain('&quot;&gt;&lt;img src=https://tracker.example/p.gif&gt;')
    expect(mail.html).toContain('P &amp; &lt;i&gt;Q&lt;/i&gt;')
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(mail.html).toContain('it&#39;s &lt;a href=&#39;https://phish.example&#39;&gt;')
    // The plain-text part is plain: nothing to escape, nothing rendered.
    expect(mail.text).toContain("it's <a href='https://phish.example'>here</a>")
  })

  it('loads nothing remote: no image, no stylesheet, no script; the only link is the offer', () => {
    const { html } = renderOfferMail(base)
    expect(html).not.toMatch(/<img|<link|<script|<iframe|url\(|@import|background-image/i)
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1])
    expect(hrefs).toEqual([base.link])
    // Inline styles only.
    expect(html).not.toMatch(/<style/i)
  })

  it('isolates other people’s text, so a right-to-left name cannot reorder the sentence', () => {
    const mail = renderOfferMail({ ...base, recipient: { email: 'r@example.com', name: 'דנה' } })
    expect(mail.html).toContain('<bdi>דנה</bdi>')
    expect(mail.html).toContain('<bdi>Acme Analytics</bdi>')
  })

  it('writes out bidirectional controls stored before the text rules, in both parts and the subject', () => {
    const mail = renderOfferMail({
      ...base,
      issuerName: 'Acme\u202E',
      reason: 'invoice\u202Egnp.exe',
      program: { name: 'P\u2066rogram' },
    })
    for (const part of [mail.subject, mail.text, mail.html]) {
      expect(part).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/u)
    }
    expect(mail.text).toContain('invoice\\u202Egnp.exe')
    expect(mail.html).toContain('invoice\\u202Egnp.exe')
    expect(mail.subject).toContain('Acme\\u202E')
  })

  it('keeps other people’s line breaks out of the subject and the greeting', () => {
    const mail = renderOfferMail({
      ...base,
      issuerName: 'Acme\r\nBcc: victim@example.com',
      recipient: { email: 'r@example.com', name: 'Ada\nP.S. click here' },
    })
    expect(mail.subject).not.toMatch(/[\r\n]/)
    expect(mail.subject).toBe('Acme Bcc: victim@example.com offers you 1,250 shares')
    expect(mail.text).toContain('Hello Ada P.S. click here,')
  })

  it('reads U+2028 and U+2029 in a name stored before the text rules refused them as line breaks too', () => {
    const mail = renderOfferMail({
      ...base,
      issuerName: 'Acme\u2029Bcc: victim@example.com',
      recipient: { email: 'r@example.com', name: 'Ann\u2028Bcc: x@evil.com' },
      reason: 'Line one\u2028Line two',
    })
    for (const part of [mail.subject, mail.text, mail.html]) {
      expect(part).not.toMatch(/[\u2028\u2029]/u)
    }
    expect(mail.subject).toBe('Acme Bcc: victim@example.com offers you 1,250 shares')
    expect(mail.text).toContain('Hello Ann Bcc: x@evil.com,')
    expect(mail.text).toContain('Reason:\nLine one\nLine two\n')
  })

  it('keeps the reason’s own lines, each one plain', () => {
    const mail = renderOfferMail({ ...base, reason: 'Line one\nLine\u0007 two' })
    expect(mail.text).toContain('Reason:\nLine one\nLine  two\n')
  })

  it('formats the expiry in UTC whatever the process’s time zone', () => {
    expect(formatExpiry('2026-01-05T03:04:00.000Z')).toBe('5 January 2026, 03:04 UTC')
  })
})

describe('the preview before "send one"', () => {
  it('is the same mail with a placeholder link and the window the program would give today', () => {
    const now = Date.parse('2026-11-26T17:00:00.000Z')
    const preview = renderOfferPreview({
      origin: 'https://console.example.com',
      mode: 'LIVE',
      recipient: base.recipient,
      issuerName: base.issuerName,
      program: { ...base.program, offerDays: 14 },
      amount: base.amount,
      reason: base.reason,
      now,
    })
    const link = `https://console.example.com/offer#t=${PREVIEW_TOKEN}`
    expect(preview).toEqual(
      renderOfferMail({ ...base, link, expiresAt: '2026-12-10T17:00:00.000Z' }),
    )
    const defaultWindow = renderOfferPreview({
      origin: 'https://console.example.com',
      mode: 'TEST',
      recipient: base.recipient,
      program: { name: 'P' },
      amount: 1,
      reason: 'r',
      now,
    })
    expect(defaultWindow.text).toContain('26 December 2026, 17:00 UTC')
    expect(defaultWindow.subject).toBe('[TEST] P offers you 1 share')
  })
})
