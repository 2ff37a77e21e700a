import { absentAsNull } from '../../functions/http/absent-as-null'

/** An optional field the record does not hold is shown as null, in the order the fields are named. */
describe('absentAsNull', () => {
  type Row = { a?: string; b?: number | null; c?: { x: number }; d: string }
  const row: Row = { a: 'kept', c: { x: 1 }, d: 'not named' }

  it('keeps a held value, shows an absent or null one as null, and leaves unnamed fields out', () => {
    expect(absentAsNull(row, ['a', 'b', 'c'])).toEqual({ a: 'kept', b: null, c: { x: 1 } })
  })

  it('names the fields in the order given', () => {
    expect(Object.keys(absentAsNull(row, ['c', 'b', 'a']))).toEqual(['c', 'b', 'a'])
  })

  it('keeps falsy values that are not absent (0, "", false)', () => {
    const falsy = { n: 0, s: '', f: false }
    expect(absentAsNull(falsy, ['n', 's', 'f'])).toEqual({ n: 0, s: '', f: false })
  })
})
