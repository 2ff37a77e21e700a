import { ValidationFailed } from '../../functions/domain/errors'
import {
  knownParameters,
  oneOf,
  readPageQuery,
  unknownParameters,
} from '../../functions/domain/page-query'

/**
 * domain/page-query.ts, the one reader of a listing's `?cursor=&limit=` and its filters (grants,
 * batches, a batch's rows) and of the unknown-parameter check every management route makes.
 */
const PAGE = { default: 25, max: 100 }
const decode = (cursor: string) => (cursor.startsWith('c') ? { at: cursor } : undefined)

const problems = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (error instanceof ValidationFailed) return error.errors
    throw error
  }
  throw new Error('no ValidationFailed')
}

describe('readPageQuery', () => {
  it('answers the default page when nothing is asked for, or every value is empty', () => {
    expect(readPageQuery(undefined, { page: PAGE, decode }).done()).toEqual({
      limit: 25,
      cursor: undefined,
    })
    expect(readPageQuery({ limit: '', cursor: '' }, { page: PAGE, decode }).done()).toEqual({
      limit: 25,
      cursor: undefined,
    })
  })

  it('reads a limit from 1 to the maximum and a cursor a previous page gave', () => {
    expect(readPageQuery({ limit: '1', cursor: 'c7' }, { page: PAGE, decode }).done()).toEqual({
      limit: 1,
      cursor: { at: 'c7' },
    })
    expect(readPageQuery({ limit: '100' }, { page: PAGE, decode }).done().limit).toBe(100)
  })

  it.each(['0', '101', '-1', '2.5', 'ten', '1e2', '9999999'])('refuses limit=%s', (limit) => {
    expect(problems(() => readPageQuery({ limit }, { page: PAGE, decode }).done())).toEqual([
      { field: 'limit', message: 'limit must be a whole number from 1 to 100' },
    ])
  })

  it('refuses a cursor no page gave, and every unknown parameter, all at once in query order', () => {
    expect(
      problems(() =>
        readPageQuery(
          { mdoe: 'TEST', cursor: 'x', limit: '0', status: 'odd', other: '' },
          { page: PAGE, decode, filters: ['status'] },
        ).done(),
      ),
    ).toEqual([
      { field: 'mdoe', message: 'unknown query parameter "mdoe"' },
      { field: 'other', message: 'unknown query parameter "other"' },
      { field: 'limit', message: 'limit must be a whole number from 1 to 100' },
      { field: 'cursor', message: 'cursor must be the nextCursor of a previous page' },
    ])
  })

  it("names the page's field that holds the cursor when it is not nextCursor", () => {
    expect(
      problems(() => readPageQuery({ cursor: 'x' }, { page: PAGE, decode, next: 'next' }).done()),
    ).toEqual([{ field: 'cursor', message: 'cursor must be the next of a previous page' }])
  })

  it("checks a filter with oneOf: absent or empty is none, another value is refused after the page's problems", () => {
    const read = (query: Record<string, string>) => {
      const page = readPageQuery(query, { page: PAGE, decode, filters: ['status'] })
      const status = oneOf(page, 'status', ['open', 'done'] as const, 'status must be open or done')
      return { ...page.done(), status }
    }
    expect(read({ status: 'done' }).status).toBe('done')
    expect(read({ status: '' }).status).toBeUndefined()
    expect(read({}).status).toBeUndefined()
    expect(problems(() => read({ limit: '0', status: 'odd' }))).toEqual([
      { field: 'limit', message: 'limit must be a whole number from 1 to 100' },
      { field: 'status', message: 'status must be open or done' },
    ])
  })
})

describe('the unknown-parameter check', () => {
  it('names each parameter the route does not know', () => {
    expect(unknownParameters({ mode: 'TEST', mdoe: 'x' }, ['mode'])).toEqual([
      { field: 'mdoe', message: 'unknown query parameter "mdoe"' },
    ])
    expect(unknownParameters(undefined, [])).toEqual([])
  })

  it('answers the query when every parameter is known, else one 400 naming them', () => {
    expect(knownParameters({ mode: 'LIVE' }, ['mode'])).toEqual({ mode: 'LIVE' })
    expect(knownParameters(undefined, ['mode'])).toEqual({})
    expect(problems(() => knownParameters({ a: '1', b: '2' }, []))).toEqual([
      { field: 'a', message: 'unknown query parameter "a"' },
      { field: 'b', message: 'unknown query parameter "b"' },
    ])
  })
})
