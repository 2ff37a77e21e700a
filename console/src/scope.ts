import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { IssuerApi, Me, Mode, Role } from './api'

/**
 * The console's addresses, under the build's base path (/app/). The server answers every /app/*
 * path without a file with index.html, so any page can be reloaded or linked to.
 */
export const BASE = import.meta.env.BASE_URL

/** A console address: `href('sign-in')` -> `/app/sign-in`. */
export const href = (path: string) => `${BASE}${path}`

/** A page of an issuer in a mode: `scopePath('iss_1', 'TEST', 'keys')` -> `/app/iss_1/test/keys`. */
export const scopePath = (issuerId: string, mode: Mode, section: string) =>
  href(`${issuerId}/${mode.toLowerCase()}/${section}`.replace(/\/+$/, ''))

/** Who is signed in, in which issuer, with which role, in which mode: what every page reads. */
export type Scope = {
  email: string
  issuerId: string
  issuerName: string
  role: Role
  mode: Mode
  memberships: Me['memberships']
  /** This issuer's management API. */
  api: IssuerApi
  /** A console address in this issuer and mode: `at('programs')` -> `/app/iss_.../test/programs`. */
  at: (section: string, mode?: Mode) => string
}

export const ScopeContext = createContext<Scope | undefined>(undefined)

export const useScope = (): Scope => {
  const scope = useContext(ScopeContext)
  if (!scope) throw new Error('useScope outside a signed-in page')
  return scope
}
