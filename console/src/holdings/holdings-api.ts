import type { Mode } from '../../../functions/domain/api-key'
import type { Holdings as DomainHoldings } from '../../../functions/domain/holdings'
import { Problem, post, problemOf, type RecipientGrant, unreachable } from '../offer/offer-api'

/**
 * The holdings page's calls, on its own origin like the offer page's: a sign-in link asked for by
 * address, its token (from the fragment) exchanged once for a session, the session kept in this
 * tab's sessionStorage (never localStorage, never a URL) and sent as a bearer. Nothing else is kept.
 */

// The answers' types are the server's own (type-only: no server code reaches the bundle); an open
// grant's `offer` is the offer page's card of it, whose steps are taken here too.
export type Holdings = DomainHoldings<RecipientGrant>
export type HoldingsProgram = Holdings['issuers'][number]['programs'][number]
export type HoldingsGrant = HoldingsProgram['grants'][number]

export type HoldingsSession = { session: string; mode: Mode; expiresAt: string }

const STORED = 'virtual-shares.holdings-session'

/** The session of this tab, if one was started here (sessionStorage ends with the tab). */
export const storedSession = (): HoldingsSession | undefined => {
  try {
    const found = JSON.parse(sessionStorage.getItem(STORED) ?? 'null') as HoldingsSession | null
    return typeof found?.session === 'string' ? found : undefined
  } catch {
    return undefined
  }
}

const keepSession = (session: HoldingsSession) =>
  sessionStorage.setItem(STORED, JSON.stringify(session))

export const forgetSession = () => sessionStorage.removeItem(STORED)

/**
 * The sign-in link's token (`/holdings#<token>`, or `#t=<token>` as offer links write it), and
 * the fragment gone from the address bar and the history entry at once.
 */
export const takeSignInToken = (): string | undefined => {
  const fragment = location.hash.replace(/^#/, '')
  if (fragment === '') return undefined
  history.replaceState(history.state, '', location.pathname + location.search)
  try {
    const token = fragment.startsWith('t=')
      ? new URLSearchParams(fragment).get('t')
      : decodeURIComponent(fragment)
    return token ? token : undefined
  } catch {
    return undefined
  }
}

export const requestSignInLink = (email: string) =>
  post<{ object: 'holdings_link_request' }>('/recipient/holdings/link', { email })

/** The link's token for a session, kept in this tab. A used, expired or unknown link: 410. */
export const startSession = async (token: string) => {
  const started = await post<HoldingsSession & { object: 'holdings_session' }>(
    '/recipient/holdings/session',
    { token },
  )
  const session = { session: started.session, mode: started.mode, expiresAt: started.expiresAt }
  keepSession(session)
  return session
}

const bearer = (session: string) => ({ Authorization: `Bearer ${session}` })

/** A GET or DELETE with the session; a refusal thrown as a Problem. */
const send = async (method: 'GET' | 'DELETE', session: string, accept: string) => {
  let response: Response
  try {
    response = await fetch(`/recipient/holdings${method === 'DELETE' ? '/session' : ''}`, {
      method,
      headers: { ...bearer(session), Accept: accept },
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      cache: 'no-store',
    })
  } catch {
    throw unreachable()
  }
  if (response.ok) return response
  const text = await response.text()
  let json: Record<string, unknown> = {}
  try {
    json = JSON.parse(text) as Record<string, unknown>
  } catch {}
  throw problemOf(response, json)
}

export const readHoldings = async (session: string) =>
  (await (await send('GET', session, 'application/json')).json()) as Holdings

/** The statement: the holdings and history as CSV (formula-safe, written by the API). */
export const readStatement = async (session: string) =>
  (await send('GET', session, 'text/csv')).text()

export const endSession = async (session: string) => {
  try {
    await send('DELETE', session, 'application/json')
  } finally {
    forgetSession()
  }
}

/** The offer page's steps, sent with the session instead of a link's token. */
export const grantStep = (
  session: string,
  step: 'identify' | 'accept' | 'decline',
  body: { grantId: string } & Record<string, unknown>,
) => post<unknown>(`/recipient/${step}`, body, bearer(session))

/** The session is over (30 minutes without activity, or signed out elsewhere). */
export const isSessionOver = (problem: unknown) =>
  problem instanceof Problem && problem.status === 401
