import { DomainError } from '../domain/errors'

/**
 * Errors about the HTTP request itself (its body, its media type, its route), which only the
 * HTTP doors raise. The domain's errors are in functions/domain/errors.ts.
 */

export class MalformedJson extends DomainError {
  readonly code = 'malformed_json'
  readonly title = 'Malformed JSON body'
}

export class RouteNotFound extends DomainError {
  readonly code = 'route_not_found'
  readonly title = 'Route not found'
  constructor(method: string, path: string) {
    super(
      `No route for ${method} ${path}. Grants are made with POST /programs/{programId}/grant-tokens.`,
    )
  }
}

/**
 * A path the API has, with a method it has no route for. The `Allow` header lists the methods the
 * path does have (RFC 9110 15.5.6).
 */
export class MethodNotAllowed extends DomainError {
  readonly code = 'method_not_allowed'
  readonly title = 'Method not allowed'
  override readonly headers: Record<string, string>
  constructor(method: string, path: string, allowed: readonly string[]) {
    super(`No route for ${method} ${path}; this path accepts ${allowed.join(', ')}.`)
    this.headers = { allow: allowed.join(', ') }
  }
}

export class PayloadTooLarge extends DomainError {
  readonly code = 'payload_too_large'
  readonly title = 'Request body too large'
  constructor(limitBytes: number) {
    super(`The request body exceeds the limit of ${limitBytes} bytes.`)
  }
}

export class UnsupportedMediaType extends DomainError {
  readonly code = 'unsupported_media_type'
  readonly title = 'Unsupported media type'
  constructor() {
    super('Send the body as JSON with the header Content-Type: application/json.')
  }
}
