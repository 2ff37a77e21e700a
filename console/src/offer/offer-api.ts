import type { RecipientGrantView, RecipientView } from '../../../functions/core/grant-life'
import { postJson } from '../post-json'

/**
 * The recipient's page talks to the public routes `POST /recipient/...` on its own origin (npm
 * start, and CloudFront's behaviour to the API in AWS). No sign-in, no cookie, no storage: the link
 * token is the only credential, kept in memory and sent in JSON bodies, never in a URL.
 */

// The answers' types are the server's own (type-only: no server code reaches the bundle).
export type RecipientGrant = RecipientGrantView
export type { RecipientView }

export type FieldError = { field: string; message: string }

/** A problem+json answer (or a network failure: status 0). */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

/**
 * The token of `#t=<token>`, and the fragment gone from the address bar (and from the history
 * entry) at once: a screenshot, a shared screen or a bookmark never carries it.
 */
export const takeLinkToken = (): string | undefined => {
  const fragment = location.hash.replace(/^#/, '')
  if (fragment === '') return undefined
  const token = new URLSearchParams(fragment).get('t') ?? undefined
  history.replaceState(history.state, '', location.pathname + location.search)
  return token === '' ? undefined : token
}

/** A refusal as the page shows it: the problem+json answer's code, detail and field errors. */
export const problemOf = (response: Response, json: Record<string, unknown>) => {
  const retryAfter = Number(response.headers.get('retry-after'))
  return new Problem(
    response.status,
    typeof json.code === 'string' ? json.code : 'unknown',
    typeof json.detail === 'string' ? json.detail : `The service answered ${response.status}.`,
    Array.isArray(json.errors) ? (json.errors as FieldError[]) : [],
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  )
}

export const unreachable = () =>
  new Problem(
    0,
    'network',
    'The service could not be reached. Check your connection and try again.',
  )

/** A JSON POST to a recipient route; `headers` adds to the JSON ones (the holdings page's bearer). */
export const post = async <T>(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> => {
  const { response, data: json } = await postJson(
    path,
    body,
    {
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    },
    unreachable,
  )
  if (response.ok) return json as T
  throw problemOf(response, json)
}

export const viewOffer = (token: string) => post<RecipientView>('/recipient/offer', { token })

export const identify = (body: {
  token: string
  grantId: string
  name: string
  dateOfBirth?: string
  country?: string
}) => post<RecipientView>('/recipient/identify', body)

export const accept = (body: { token: string; grantId: string; termsVersion: number }) =>
  post<RecipientView>('/recipient/accept', body)

export const decline = (body: { token: string; grantId: string }) =>
  post<RecipientView>('/recipient/decline', body)

export const requestLink = (email: string) =>
  post<{ message: string }>('/recipient/links', { email })

/** What a refusal that is no field's says: too many attempts, the network, the service. */
export const problemText = (problem: unknown) => {
  if (!(problem instanceof Problem)) return 'Something went wrong. Reload the page to try again.'
  if (problem.status === 429) {
    return problem.retryAfterSeconds === undefined
      ? 'Too many attempts. Wait a moment, then try again.'
      : `Too many attempts. Try again in ${problem.retryAfterSeconds} seconds.`
  }
  if (problem.status === 0) return problem.message
  if (problem.status >= 500)
    return `The service could not answer (${problem.status}). Try again in a moment.`
  return problem.message
}
