import { newId } from '../../functions/domain/ids'
import { ID, pagedList, pageParameter, query } from '../../lib/openapi-parts'

describe('openapi parts (lib/openapi-parts.ts)', () => {
  it('pagedList: object, data and nextCursor, all required, nothing else', () => {
    expect(pagedList({ $ref: '#/components/schemas/X' })).toEqual({
      type: 'object',
      properties: {
        object: { type: 'string', const: 'list' },
        data: { type: 'array', items: { $ref: '#/components/schemas/X' } },
        nextCursor: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['object', 'data', 'nextCursor'],
      additionalProperties: false,
    })
    expect(pagedList({}, { description: 'd' }).properties.nextCursor).toEqual({ description: 'd' })
  })

  it('pageParameter: an optional limit within the page bounds, the default stated', () => {
    expect(pageParameter('Rows', { default: 25, max: 100 })).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Rows per page, 1 to 100 (default 25).',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    })
    expect(query('status', 'Only these.', { type: 'string' })).toMatchObject({ required: false })
  })
})

describe('ID (lib/openapi-parts.ts): the ids openapi.json promises are the ids the service makes', () => {
  it.each(['issuer', 'program', 'grant', 'apiKey'] as const)('%s', (kind) => {
    const pattern = new RegExp(ID[kind].pattern)
    for (let i = 0; i < 200; i++) expect(newId(kind)).toMatch(pattern)
    // Exactly Crockford's 32 characters: none of i, l, o, u, and no capital.
    const id = newId(kind)
    const prefix = id.slice(0, id.indexOf('_') + 1)
    for (const c of '0123456789abcdefghijklmnopqrstuvwxyzABC') {
      expect(pattern.test(`${prefix}${c.repeat(26)}`)).toBe(!'ilouABC'.includes(c))
    }
  })
})
