import { parse } from 'csv-parse/sync'
import type { GrantRecord } from '../../functions/domain/grant'
import { type Holdings, holdingsCsv, holdingsOf } from '../../functions/domain/holdings'
import { parseOfferMailQueueMessage } from '../../functions/domain/offer-mail-message.schema'
import type { ProgramRecord } from '../../functions/domain/program'
import { holdingsLink, renderHoldingsMail } from '../../functions/mail/holdings-mail'

/** The holdings' shape and statement (domain/holdings.ts) and the sign-in mail, pure. */
const NOW = Date.parse('2026-11-29T12:00:00.000Z')
let n = 0
const grant = (over: Partial<GrantRecord>): GrantRecord => ({
  grantId: `gr_${String(n++).padStart(26, '0')}`,
  programId: 'prg_a',
  issuerId: 'iss_a',
  mode: 'LIVE',
  recipient: { email: 'ann@example.com' },
  recipientKey: 'ann@example.com',
  reason: 'Bonus',
  amount: 1,
  status: 'reserved',
  createdAt: '2026-11-01T00:00:00.000Z',
  expiresAt: '2026-12-31T00:00:00.000Z',
  requestHash: 'h',
  ...over,
})
const program = (over: Partial<ProgramRecord>): ProgramRecord => ({
  programId: 'prg_a',
  issuerId: 'iss_a',
  mode: 'LIVE',
  name: 'Program A',
  status: 'active',
  issued: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
})

const view = (grants: GrantRecord[], programs: ProgramRecord[]) =>
  holdingsOf({
    holder: { email: 'ann@example.com', mode: 'LIVE' },
    grants,
    programs: new Map(programs.map((p) => [p.programId, p])),
    issuerNames: new Map([
      ['iss_a', 'Zeta AG'],
      ['iss_b', 'Acme'],
    ]),
    now: NOW,
    offerOf: (g) => ({ offerFor: g.grantId }),
  })

it('groups by issuer and program by name, grants newest first, values exact', () => {
  const accepted = [3, 7].map((amount) =>
    grant({
      amount,
      status: 'accepted',
      acceptance: { termsVersion: 2, at: '2026-11-02T00:00:00.000Z' },
      createdAt: `2026-11-0${amount}T00:00:00.000Z`,
    }),
  )
  const open = grant({ amount: 5, createdAt: '2026-11-09T00:00:00.000Z' })
  const lapsed = grant({ amount: 4, expiresAt: '2026-11-28T00:00:00.000Z', status: 'offered' })
  const declined = grant({ status: 'rejected', rejectionReason: 'declined' })
  const other = grant({ issuerId: 'iss_b', programId: 'prg_b' })
  const holdings = view(
    [declined, ...accepted, open, lapsed, other],
    [
      program({
        value: { valueId: 'v', amount: '0.10', currency: 'EUR', asOf: '2026-11-01', setAt: 'x' },
      }),
      program({ programId: 'prg_b', issuerId: 'iss_b', name: 'Program B' }),
    ],
  )
  expect(holdings.issuers.map((i) => i.name)).toEqual(['Acme', 'Zeta AG'])
  const a = holdings.issuers[1]?.programs[0]
  // 10 × "0.10" is "1.00", never 1.0000000000000002.
  expect(a).toMatchObject({ accepted: 10, acceptedValue: '1.00', pending: 9, tokenValue: '0.10' })
  expect(a?.grants.map((g) => g.grantId)).toEqual([
    open.grantId,
    accepted[1]?.grantId,
    accepted[0]?.grantId,
    declined.grantId,
    lapsed.grantId,
  ])
  // Only a grant that can still be acted on carries its offer.
  expect(a?.grants.map((g) => g.offer)).toEqual([
    { offerFor: open.grantId },
    null,
    null,
    null,
    null,
  ])
  expect(holdings.issuers[0]?.programs[0]).toMatchObject({ tokenValue: null, acceptedValue: null })
})

it('writes the statement formula-safe, the value on accepted grants only', () => {
  const holdings: Holdings<unknown> = view(
    [
      grant({ reason: '=HYPERLINK("http://x")', amount: 3, status: 'accepted' }),
      grant({ reason: 'plain', amount: 2 }),
    ],
    [
      program({
        name: '+evil',
        value: { valueId: 'v', amount: '1.5', currency: 'USD', asOf: '2026-11-01', setAt: 'x' },
      }),
    ],
  )
  const rows = parse(holdingsCsv(holdings), { columns: true }) as Record<string, string>[]
  expect(rows.map((r) => [r.program, r.reason, r.status, r.accepted_value])).toEqual([
    ["'+evil", 'plain', 'reserved', ''],
    ["'+evil", `'=HYPERLINK("http://x")`, 'accepted', '4.5'],
  ])
})

it('renders the sign-in mail: the link in both parts, someone else’s text escaped', () => {
  const link = holdingsLink('https://console.example.com/', 'tok_-1')
  expect(link).toBe('https://console.example.com/holdings#tok_-1')
  const live = renderHoldingsMail({ mode: 'LIVE', link, expiresAt: '2026-11-29T12:15:00.000Z' })
  expect(live.subject).toBe('Sign in to see your shares')
  expect(live.text).toContain(link)
  expect(live.html).toContain(`href="${link}"`)
  expect(live.text).toContain('29 November 2026, 12:15 UTC')
  const test = renderHoldingsMail({
    mode: 'TEST',
    issuerName: '<b>Evil</b> & Co',
    link,
    expiresAt: '2026-11-29T12:15:00.000Z',
  })
  expect(test.subject).toBe('[TEST] Sign in to see your TEST shares from <b>Evil</b> & Co')
  expect(test.html).toContain('<bdi>&lt;b&gt;Evil&lt;/b&gt; &amp; Co</bdi>')
  expect(test.html).not.toContain('<b>Evil')
  expect(test.text).toContain('TEST sign-in link')
})

it('reads a holdings-link message off the OfferMail queue, and nothing of another shape', () => {
  const at = '2026-11-29T12:00:00.000Z'
  const message = { kind: 'holdings-link', email: 'ann@example.com', at }
  expect(parseOfferMailQueueMessage(JSON.stringify(message))).toEqual(message)
  for (const wrong of [
    { kind: 'holdings-link', at },
    { kind: 'holdings-link', email: 'no-at-sign', at },
    { kind: 'holdings-link', email: 'ann@example.com' },
  ]) {
    expect(parseOfferMailQueueMessage(JSON.stringify(wrong))).toBeUndefined()
  }
})
