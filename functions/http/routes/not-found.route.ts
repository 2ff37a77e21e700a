import { methodsForPath } from '../../routes'
import { httpHandler } from '../http-handler'
import { MethodNotAllowed, RouteNotFound } from '../request-errors'

/**
 * API Gateway's catch-all route (`$default`): every request no route takes. A path the API has,
 * asked with another method (HEAD and OPTIONS included: without CORS, API Gateway sends them here
 * too), is 405 with `Allow`; anything else is 404. Both are problem+json, like every other answer.
 */
export const makeNotFoundHandler = () =>
  httpHandler(async (event) => {
    const { method } = event.requestContext.http
    const allowed = methodsForPath(event.rawPath)
    // API Gateway never sends a method the path has here; answer 404, never "use POST" to a POST.
    if (allowed.length > 0 && !allowed.includes(method)) {
      throw new MethodNotAllowed(method, event.rawPath, allowed)
    }
    throw new RouteNotFound(method, event.rawPath)
  })
