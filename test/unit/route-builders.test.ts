import { existsSync } from 'node:fs'
import { ROUTES } from '../../functions/routes'
import { functionRoute, userRoute } from '../../functions/routes/route'

describe('route builders (functions/routes/route.ts)', () => {
  it('functionRoute: a handler under functions/handlers/, checked by the function', () => {
    expect(functionRoute('X', 'GET /x', 'get-x', { access: {} })).toEqual({
      id: 'X',
      routeKey: 'GET /x',
      entry: 'functions/handlers/get-x.handler.ts',
      auth: 'function',
      access: {},
    })
  })

  it('userRoute: a handler under functions/handlers/manage/, behind the JWT authorizer', () => {
    const route = userRoute('Y', 'POST /manage/y', 'y-create', {
      role: 'admin',
      access: { audit: ['dynamodb:PutItem'] },
    })
    expect(Object.keys(route)).toEqual(['id', 'routeKey', 'entry', 'auth', 'role', 'access'])
    expect(route).toMatchObject({
      entry: 'functions/handlers/manage/y-create.handler.ts',
      auth: 'user',
    })
  })

  it('every route of the list names a handler that exists, once', () => {
    for (const route of ROUTES)
      expect({ route: route.id, exists: existsSync(route.entry) }).toEqual({
        route: route.id,
        exists: true,
      })
    expect(new Set(ROUTES.map((r) => r.id)).size).toBe(ROUTES.length)
  })
})
