import { nameRule } from '../../functions/domain/admin-rules'
import { checkBatchRows } from '../../functions/domain/batch-rows'
import { GrantRequestSchema } from '../../functions/domain/grant-request.schema'
import { nameProblem } from '../../functions/domain/recipient-fields'
import { recipientIdentifyBody } from '../../functions/domain/recipient-request.schema'
import { textProblem } from '../../functions/domain/text-rules'
import { zodIssuesToFieldErrors } from '../../functions/domain/validation'

/**
 * Every character that breaks a line (Unicode's mandatory breaks: LF, VT, FF, CR, NEL, and the
 * line and paragraph separators U+2028 and U+2029) is refused in a one-line text by the shared
 * rule (functions/domain/text-rules.ts), at each door that asks it. `Ann\u2028Bcc: x@evil.com`
 * would otherwise be stored, and shown on two lines in a mail. Through the local server:
 * test/security/line-breaks.test.ts.
 */
const LINE_BREAKS = [
  ['LF', '\n'],
  ['VT', '\u000B'],
  ['FF', '\u000C'],
  ['CR', '\r'],
  ['CRLF', '\r\n'],
  ['NEL', '\u0085'],
  ['U+2028', '\u2028'],
  ['U+2029', '\u2029'],
] as const

const RULE = 'must not contain control characters'

describe.each(LINE_BREAKS)('%s inside a one-line text', (_, br) => {
  it('is a control character to the shared rule, wherever it stands; alone, refused too', () => {
    expect(textProblem(`Ann${br}Bcc: x@evil.com`)).toBe('control')
    expect(textProblem(`${br}Ann`)).toBe('control')
    expect(textProblem(`Ann${br}`)).toBe('control')
    // Blank to JavaScript's \s, but NEL is not white space there.
    expect(['blank', 'control']).toContain(textProblem(br))
  })

  it('is refused by the grant API in recipient.name and reason, each named', () => {
    const result = GrantRequestSchema.safeParse({
      recipient: { email: 'ann@example.com', name: `Ann${br}Bcc: x@evil.com` },
      reason: `Spring${br}bonus`,
      amount: 1,
    })
    expect(result.success).toBe(false)
    expect(result.success ? [] : zodIssuesToFieldErrors(result.error)).toEqual([
      { field: 'recipient.name', message: `recipient.name ${RULE}` },
      { field: 'reason', message: `reason ${RULE}` },
    ])
  })

  it("is refused in a batch row's name and reason, and in the batch's reason", () => {
    const csv = `email,amount,name,reason\r\nann@example.com,1,"Ann${br}x",Spring\r\nbob@example.com,1,Bob,"a${br}b"\r\n`
    const checked = checkBatchRows(csv, 'Launch')
    expect(checked.valid).toBe(0)
    expect(checked.rows.map((r) => r.problem?.errors)).toEqual([
      [{ field: 'name', message: `name ${RULE}` }],
      [{ field: 'reason', message: `reason ${RULE}` }],
    ])
    const batchReason = checkBatchRows('email,amount\r\nann@example.com,1\r\n', `Launch${br}x`)
    expect(batchReason.rows[0]?.problem?.errors).toEqual([
      { field: 'reason', message: `reason ${RULE}` },
    ])
  })

  it("is refused in a program's name (management API and CLI) and a recipient's own name", () => {
    expect(() => nameRule(`Spring${br}Bcc: x@evil.com`)).toThrow(
      'must be 1 to 100 characters without control characters',
    )
    expect(nameProblem(`Ann${br}Bcc: x@evil.com`)).toBe(RULE)
    const identify = recipientIdentifyBody(() => Date.now()).safeParse({
      token: 't',
      grantId: 'g',
      name: `Ann${br}Bcc: x@evil.com`,
    })
    expect(identify.success ? [] : zodIssuesToFieldErrors(identify.error)).toEqual([
      { field: 'name', message: `name ${RULE}` },
    ])
  })
})

it('takes white space that breaks no line, and format characters, as it did', () => {
  for (const text of ['Ann\tLee', 'Ann\u00A0Lee', 'Ann\u3000Lee', 'Zoë', 'a\u200Db']) {
    expect(textProblem(text)).toBe(text.includes('\t') ? 'control' : undefined)
  }
})
