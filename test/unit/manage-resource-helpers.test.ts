import { bodyOfFields } from '../../functions/http/body-shape'
import { nullWhereAbsent } from '../../functions/http/resource-fields'

/**
 * The two helpers the management resources and bodies share: http/resource-fields.ts (a
 * resource's optional fields, null where absent) and http/body-shape.ts's bodyOfFields (a body's
 * shape only: an object of these optional fields, nothing else).
 */
describe('nullWhereAbsent', () => {
  const record: { a?: number; b?: string | null; c: boolean } = { a: 0, c: true }

  it('names every field asked for: its value where present (0 and false too), null where not', () => {
    expect(nullWhereAbsent(record, ['a', 'b'])).toEqual({ a: 0, b: null })
    expect(nullWhereAbsent({ ...record, b: null }, ['b', 'c'])).toEqual({ b: null, c: true })
  })

  it('keeps the order the fields are asked in, and only those', () => {
    expect(Object.keys(nullWhereAbsent(record, ['c', 'b', 'a']))).toEqual(['c', 'b', 'a'])
  })
})

describe('bodyOfFields', () => {
  const Body = bodyOfFields('offerDays', 'terms')

  it('takes an object of the named fields, any of them absent, their values unchecked', () => {
    expect(Body.parse({ offerDays: 'x', terms: { text: 1 } })).toEqual({
      offerDays: 'x',
      terms: { text: 1 },
    })
    expect(Body.parse({})).toEqual({})
  })

  it('refuses a field it does not name, and anything but an object', () => {
    expect(Body.safeParse({ offerDays: 1, pool: 3 }).success).toBe(false)
    const notAnObject = Body.safeParse([])
    expect(notAnObject.success).toBe(false)
    expect(notAnObject.error?.issues[0]?.message).toBe('The body must be a JSON object')
  })
})
