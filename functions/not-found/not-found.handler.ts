import { RouteNotFound } from '../shared/errors'
import { httpHandler } from '../shared/http-handler'

/** API Gateway's catch-all route: unknown paths get a problem+json answer, like everything else. */
export const handler = httpHandler(async (event) => {
  throw new RouteNotFound(event.requestContext.http.method, event.rawPath)
})
