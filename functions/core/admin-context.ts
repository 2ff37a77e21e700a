import { type EntityKind, InvalidId, NotFound, WriteConflictError } from '../domain/admin-errors'
import { keyState } from '../domain/api-key'
import { auditEntry } from '../domain/audit-entry'
import { idPattern } from '../domain/ids'
import type { Actor, AuditEntry } from '../domain/people'
import type { AdminStore } from '../stores/admin.store'
import type { AdminKeyRecord } from '../stores/api-keys.store'
import { StoreUnavailable } from '../stores/store-errors'

/**
 * What every group of management use cases (core/admin.ts makeAdmin) shares: the store, the
 * clock, who the changes are made for, their audit entries and the scoped look-ups.
 *
 * `who` is the person or the operator the changes are made for (and the request id of a
 * management call); a route makes one per request. A `scope` (the route's issuer) makes another
 * issuer's program or key answer exactly like one that does not exist.
 */
export type Who = { actor: Actor; requestId?: string }
export type Scope = { issuerId?: string }

export type KeyView = AdminKeyRecord & { state: 'active' | 'revoked' | 'expired' }

const ID_KIND = { issuer: 'issuer', program: 'program', key: 'apiKey' } as const
export const checkId = (kind: EntityKind, id: string | undefined) => {
  if (id === undefined || !idPattern(ID_KIND[kind]).test(id)) throw new InvalidId(kind, id ?? '')
  return id
}

/** A write that ran out of conflict retries, told as the change that was asked for. */
export const orBusy = async <T>(change: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write()
  } catch (error) {
    if (!(error instanceof StoreUnavailable) || error.reason !== 'conflict') throw error
    throw new WriteConflictError(change, error.attempts ?? 0, error.elapsedMs ?? 0)
  }
}

export const adminContext = (store: AdminStore, clock: () => number, who: Who) => {
  const iso = () => new Date(clock()).toISOString()

  const audit = (
    issuerId: string,
    action: string,
    target: AuditEntry['target'],
    details?: AuditEntry['details'],
  ) =>
    auditEntry({
      issuerId,
      actor: who.actor,
      action,
      target,
      now: clock(),
      requestId: who.requestId,
      ...(details === undefined ? {} : { details }),
    })

  const inScope = (issuerId: string, scope: Scope | undefined) =>
    scope?.issuerId === undefined || scope.issuerId === issuerId

  const requireProgram = async (programId: string, scope?: Scope) => {
    const program = await store.getProgram(checkId('program', programId))
    if (!program || !inScope(program.issuerId, scope)) throw new NotFound('program', programId)
    return program
  }

  const requireKey = async (keyId: string, scope?: Scope) => {
    const key = await store.findApiKeyById(checkId('key', keyId))
    if (!key || !inScope(key.issuerId, scope)) throw new NotFound('key', keyId)
    return key
  }

  const keyView = (key: AdminKeyRecord): KeyView => ({ ...key, state: keyState(key, clock()) })

  return { store, clock, who, iso, audit, inScope, requireProgram, requireKey, keyView }
}

export type AdminContext = ReturnType<typeof adminContext>
