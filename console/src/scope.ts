import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Me, Mode, Role } from './api'

/** Who is signed in, in which issuer, with which role, in which mode: what every page reads. */
export type Scope = {
  email: string
  issuerId: string
  issuerName: string
  role: Role
  mode: Mode
  memberships: Me['memberships']
  /** A console path in this issuer and mode: `at('programs')` -> `iss_.../test/programs`. */
  at: (section: string, mode?: Mode) => string
}

export const ScopeContext = createContext<Scope | undefined>(undefined)

export const useScope = (): Scope => {
  const scope = useContext(ScopeContext)
  if (!scope) throw new Error('useScope outside a signed-in page')
  return scope
}

export const scopePath = (issuerId: string, mode: Mode, section: string) =>
  `${issuerId}/${mode.toLowerCase()}/${section}`.replace(/\/+$/, '')
