import {
  compareAmounts,
  fractionOf,
  isDecimalAmount,
  valueOfShares,
} from '../../functions/domain/share-value'

describe('share value: decimal amounts kept exactly', () => {
  it('multiplies shares by an amount without binary floats', () => {
    expect(valueOfShares(3, '0.10')).toBe('0.30')
    expect(valueOfShares(4, '12')).toBe('48')
    expect(valueOfShares(0, '12.5')).toBe('0.0')
    expect(valueOfShares(1_000_000_000_000, '999999999999.999999')).toBe(
      '999999999999999999000000.000000',
    )
    expect(valueOfShares(7, '0.000001')).toBe('0.000007')
  })

  it('refuses what is not a whole number of shares or not an amount', () => {
    expect(() => valueOfShares(1.5, '1')).toThrow(RangeError)
    expect(() => valueOfShares(-1, '1')).toThrow(RangeError)
    expect(() => valueOfShares(1, '1e3')).toThrow(RangeError)
  })

  it('accepts plain decimals only', () => {
    for (const ok of ['0', '12', '12.5', '0.000001', '999999999999.999999']) {
      expect(isDecimalAmount(ok)).toBe(true)
    }
    for (const bad of ['', '.5', '5.', '012', '-1', '1e3', '1,5', '1.0000001', '1000000000000']) {
      expect(isDecimalAmount(bad)).toBe(false)
    }
  })

  it('compares amounts by value whatever their digits after the point', () => {
    expect(compareAmounts('1.5', '1.50')).toBe(0)
    expect(compareAmounts('1.49', '1.5')).toBe(-1)
    expect(compareAmounts('10', '9.999999')).toBe(1)
  })

  it('writes a share of a whole rounded half up', () => {
    expect(fractionOf(1, 3)).toBe('0.3333')
    expect(fractionOf(2, 3)).toBe('0.6667')
    expect(fractionOf(1, 8, 3)).toBe('0.125')
    expect(fractionOf(5, 0)).toBe('0')
    expect(fractionOf(3, 3)).toBe('1.0000')
  })
})
