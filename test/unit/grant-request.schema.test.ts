import {
  GrantRequestSchema,
  IdempotencyKeySchema,
  LIMITS,
} from '../../functions/domain/grant-request.schema'
import { zodIssuesToFieldErrors } from '../../functions/domain/validation'

const valid = { recipient: { email: 'ann@example.com' }, reason: 'Referral bonus', amount: 1 }

const errorsOf = (body: unknown) => {
  const result = GrantRequestSchema.safeParse(body)
  if (result.success) throw new Error(`expected ${JSON.stringify(body)} to be rejected`)
  return zodIssuesToFieldErrors(result.error)
}

describe('grant request schema', () => {
  it('accepts the reference call and normalises the e-mail', () => {
    expect(
      GrantRequestSchema.parse({
        ...valid,
        recipient: { email: '  Ann@Example.COM ', name: 'Ann' },
      }),
    ).toEqual({ ...valid, recipient: { email: 'ann@example.com', name: 'Ann' } })
  })

  it('accepts the documented limits exactly', () => {
    const local = 'a'.repeat(64)
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(56)}.com`
    const email = `${local}@${domain}`.slice(0, LIMITS.maxEmailLength)
    expect(email.length).toBeLessThanOrEqual(254)
    expect(
      GrantRequestSchema.safeParse({
        recipient: { email: 'x@example.com', name: 'n'.repeat(LIMITS.maxNameLength) },
        reason: 'r'.repeat(LIMITS.maxReasonLength),
        amount: LIMITS.maxAmount,
      }).success,
    ).toBe(true)
    // JSON `1.0` is the number 1: a whole number.
    expect(GrantRequestSchema.safeParse({ ...valid, amount: JSON.parse('1.0') }).success).toBe(true)
  })

  it.each([
    [{ ...valid, amount: '1' }, 'amount', 'amount must be a JSON number'],
    [{ ...valid, amount: 1.5 }, 'amount', 'amount must be a whole number'],
    [{ ...valid, amount: 0 }, 'amount', 'amount must be greater than zero'],
    [{ ...valid, amount: -0 }, 'amount', 'amount must be greater than zero'],
    [{ ...valid, amount: -3 }, 'amount', 'amount must be greater than zero'],
    [{ ...valid, amount: LIMITS.maxAmount + 1 }, 'amount', 'amount must be at most 1000000'],
    [{ ...valid, amount: JSON.parse('1e309') }, 'amount', 'amount must be a JSON number'],
    [{ ...valid, amount: undefined }, 'amount', 'amount is required'],
    [
      { ...valid, recipient: { email: 'not-an-address' } },
      'recipient.email',
      'recipient.email must be a valid e-mail address',
    ],
    [
      { ...valid, recipient: { email: `${'a'.repeat(250)}@x.io` } },
      'recipient.email',
      'recipient.email must be at most 254 characters',
    ],
    [{ ...valid, recipient: {} }, 'recipient.email', 'recipient.email is required'],
    [
      { ...valid, recipient: 'ann@example.com' },
      'recipient',
      'recipient must be an object with an email',
    ],
    [
      { ...valid, recipient: { email: 'a@b.co', name: '  ' } },
      'recipient.name',
      'recipient.name must not be blank',
    ],
    [
      { ...valid, recipient: { email: 'a@b.co', name: '\u200b' } },
      'recipient.name',
      'recipient.name must not be blank',
    ],
    [
      { ...valid, recipient: { email: 'a@b.co', name: 5 } },
      'recipient.name',
      'recipient.name must be a string',
    ],
    [
      { ...valid, recipient: { email: 'a@b.co', name: false } },
      'recipient.name',
      'recipient.name must be a string',
    ],
    [{ ...valid, reason: '' }, 'reason', 'reason must not be blank'],
    [{ ...valid, reason: '   ' }, 'reason', 'reason must not be blank'],
    // Invisible characters only: zero-width space, word joiner, BOM, Hangul filler, braille blank.
    [{ ...valid, reason: '\u200b' }, 'reason', 'reason must not be blank'],
    [{ ...valid, reason: ' \u2060\ufeff ' }, 'reason', 'reason must not be blank'],
    [{ ...valid, reason: '\u3164\u2800\u00ad' }, 'reason', 'reason must not be blank'],
    [{ ...valid, reason: null }, 'reason', 'reason must be a string'],
    [{ ...valid, reason: 'tab\there' }, 'reason', 'reason must not contain control characters'],
    [{ ...valid, reason: 'nul\u0000' }, 'reason', 'reason must not contain control characters'],
    [{ ...valid, reason: 'c1\u0085' }, 'reason', 'reason must not contain control characters'],
    [{ ...valid, reason: 'lone \ud800 surrogate' }, 'reason', 'reason must be valid Unicode'],
    // Bidirectional controls: "\u202Egnp.exe" shows as exe.png (test/security/bidi-text.test.ts).
    [
      { ...valid, reason: 'pay \u202Eexe.' },
      'reason',
      'reason must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)',
    ],
    [
      { ...valid, recipient: { email: 'a@b.co', name: '\u2066Ann\u2069' } },
      'recipient.name',
      'recipient.name must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)',
    ],
    [{ ...valid, reason: 'r'.repeat(501) }, 'reason', 'reason must be at most 500 characters'],
    [{ ...valid, reason: 42 }, 'reason', 'reason must be a string'],
    [{ ...valid, ammount: 1 }, 'ammount', 'unknown field "ammount"'],
    [
      { ...valid, recipient: { email: 'a@b.co', emial: 'x' } },
      'recipient.emial',
      'unknown field "emial"',
    ],
    [[valid], '(body)', 'The body must be a JSON object'],
    [null, '(body)', 'The body must be a JSON object'],
  ])('rejects %j naming %s', (body, field, message) => {
    expect(errorsOf(body)).toContainEqual({ field, message })
  })

  it.each([
    ['""', ''],
    ['null', null],
  ])('accepts recipient.name %s as "no name" (what existing integrations send)', (_, name) => {
    const parsed = GrantRequestSchema.parse({ ...valid, recipient: { email: 'a@b.co', name } })
    expect(parsed.recipient.name || undefined).toBeUndefined()
  })

  it('keeps visible text with invisible characters in it', () => {
    expect(GrantRequestSchema.safeParse({ ...valid, reason: 'Ref\u200berral' }).success).toBe(true)
  })

  it('reports every failing field at once', () => {
    const fields = errorsOf({ recipient: { email: 'x' }, reason: '', amount: 0, extra: 1 }).map(
      (e) => e.field,
    )
    expect(fields).toEqual(expect.arrayContaining(['recipient.email', 'reason', 'amount', 'extra']))
  })

  it.each([
    ['a', true],
    ['x'.repeat(255), true],
    ['order-42 retry/1 ~!@#', true],
    ['', false],
    ['x'.repeat(256), false],
    ['naïve', false],
    ['line\nbreak', false],
  ])('Idempotency-Key %j valid: %s', (key, ok) => {
    expect(IdempotencyKeySchema.safeParse(key).success).toBe(ok)
  })
})
