/**
 * The value of a share (issue 32): a decimal amount kept exactly, as a string of digits, never a
 * binary float. Every door that shows a value (the program, the balance, the holders, the
 * recipient's holdings) multiplies with `valueOfShares`, so 3 × "0.10" is "0.30", not
 * 0.30000000000000004. Pure: no imports.
 */

/** Digits before the point (a share worth up to 10^12 in its currency), and after it. */
export const MAX_VALUE_INTEGER_DIGITS = 12
export const MAX_VALUE_FRACTION_DIGITS = 6

/** `12`, `12.5`, `0.000001`: no sign, no exponent, no leading zeros beyond one, no lone point. */
export const DECIMAL_AMOUNT = new RegExp(
  `^(0|[1-9][0-9]{0,${MAX_VALUE_INTEGER_DIGITS - 1}})(\\.[0-9]{1,${MAX_VALUE_FRACTION_DIGITS}})?$`,
)

/** Whether `text` is an amount this service keeps (DECIMAL_AMOUNT). */
export const isDecimalAmount = (text: string) => DECIMAL_AMOUNT.test(text)

/** An amount as an integer of units of 10^-scale: "12.50" -> { units: 1250n, scale: 2 }. */
const unitsOf = (amount: string): { units: bigint; scale: number } => {
  const [whole = '0', fraction = ''] = amount.split('.')
  return { units: BigInt(`${whole}${fraction}`), scale: fraction.length }
}

/** `units` × 10^-scale written back as a decimal with exactly `scale` digits after the point. */
const decimalOf = (units: bigint, scale: number): string => {
  if (scale === 0) return units.toString()
  const digits = units.toString().padStart(scale + 1, '0')
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
}

/**
 * `shares` × `amount`, exactly, with as many digits after the point as the amount has
 * ("0.10" × 3 = "0.30"; "12" × 4 = "48"). `shares` is a whole number of shares (at most a pool,
 * 10^12, well inside a double's exact integers).
 */
export const valueOfShares = (shares: number, amount: string): string => {
  if (!Number.isSafeInteger(shares) || shares < 0) {
    throw new RangeError('shares must be a whole number of shares')
  }
  if (!isDecimalAmount(amount)) throw new RangeError('amount must be a decimal amount')
  const { units, scale } = unitsOf(amount)
  return decimalOf(units * BigInt(shares), scale)
}

/**
 * Compares two amounts by value (-1, 0, 1), whatever their digits after the point:
 * "1.5" equals "1.50".
 */
export const compareAmounts = (a: string, b: string): number => {
  const x = unitsOf(a)
  const y = unitsOf(b)
  const scale = Math.max(x.scale, y.scale)
  const left = x.units * 10n ** BigInt(scale - x.scale)
  const right = y.units * 10n ** BigInt(scale - y.scale)
  return left < right ? -1 : left > right ? 1 : 0
}

/**
 * `part` / `whole` as a decimal fraction rounded half-up to `digits` places ("share of the pool":
 * 1 of 3 -> "0.3333" with 4 places). `whole` 0 gives "0".
 */
export const fractionOf = (part: number, whole: number, digits = 4): string => {
  if (whole <= 0) return '0'
  const scale = 10n ** BigInt(digits)
  const numerator = BigInt(part) * scale * 2n + BigInt(whole)
  const units = numerator / (BigInt(whole) * 2n)
  return decimalOf(units, digits)
}
