import type { ApiKeyRecord, Mode } from '../../functions/domain/api-key'
import { encodeGrantCursor, type GrantCursor, type GrantRecord } from '../../functions/domain/grant'
import { grantListSlot } from '../../functions/domain/grant-slots'
import type { AuditEntry } from '../../functions/domain/people'
import type { ProgramRecord, ProgramStatus } from '../../functions/domain/program'
import type { AdminStore, ChangeOptions, Page } from '../../functions/stores/admin.store'
import type {
  AdminKeyRecord,
  KeyLimitChange,
  KeyLimitSet,
  KeyRevocation,
  KeyRoll,
} from '../../functions/stores/api-keys.store'
import type { IssuerRecord } from '../../functions/stores/issuers.store'
import type { SlotBackfill } from '../../functions/stores/migrations/grant-slots.store'
import type { ProgramChange } from '../../functions/stores/programs.store'
import { StoreUnavailable } from '../../functions/stores/store-errors'

/**
 * AdminStore in memory, for the core's in-process tests: the same contract as the DynamoDB
 * stores (functions/stores/*.dynamodb.ts), conditions included. A change and its audit entry are
 * written together or not at all; a refused change writes neither. Reads return copies, so the
 * core cannot change the state except through the interface.
 *
 * `failNext(method, error)` makes the next call of a method throw (a store that ran out of
 * conflict retries, a throttle); `beforeWrite` runs just before a change's conditions are checked
 * (another writer in between the core's read and its write).
 */
export class FakeAdminStore implements AdminStore {
  /** Every call, by method name, in order: what the core asked of the store. */
  readonly calls: string[]
  readonly state: {
    issuers: Map<string, IssuerRecord>
    programs: Map<string, ProgramRecord>
    keys: Map<string, AdminKeyRecord>
    grants: GrantRecord[]
    audit: AuditEntry[]
    failures: Map<string, unknown>
    beforeWrite: ((method: string) => void) | undefined
  }

  constructor(
    private readonly signal?: AbortSignal,
    shared?: FakeAdminStore,
  ) {
    this.calls = shared?.calls ?? []
    this.state = shared?.state ?? {
      issuers: new Map(),
      programs: new Map(),
      keys: new Map(),
      grants: [],
      audit: [],
      failures: new Map(),
      beforeWrite: undefined,
    }
  }

  failNext(method: keyof AdminStore, error: unknown) {
    this.state.failures.set(method, error)
  }

  set beforeWrite(hook: ((method: string) => void) | undefined) {
    this.state.beforeWrite = hook
  }

  /** Every call goes through here: recorded, aborted with the signal, or failed as asked. */
  private enter(method: string) {
    this.calls.push(method)
    this.signal?.throwIfAborted()
    if (this.state.failures.has(method)) {
      const error = this.state.failures.get(method)
      this.state.failures.delete(method)
      throw error
    }
  }

  /** The change and its audit entry, or neither (an entry id taken refuses both). */
  private write(options: ChangeOptions | undefined, change: () => void) {
    if (options?.audit && this.state.audit.some((e) => e.entryId === options.audit?.entryId)) {
      throw new StoreUnavailable('clash', 'The audit entry could not be written.')
    }
    change()
    if (options?.audit) this.state.audit.push(structuredClone(options.audit))
  }

  private conditions(method: string) {
    this.state.beforeWrite?.(method)
  }

  private inScope(item: { issuerId: string }, options: ChangeOptions | undefined) {
    return options?.issuerId === undefined || options.issuerId === item.issuerId
  }

  withSignal(signal: AbortSignal | undefined): FakeAdminStore {
    return new FakeAdminStore(signal, this)
  }

  async createIssuer(issuer: IssuerRecord, options?: ChangeOptions): Promise<void> {
    this.enter('createIssuer')
    this.conditions('createIssuer')
    if (this.state.issuers.has(issuer.issuerId)) {
      throw new StoreUnavailable('clash', `Issuer id ${issuer.issuerId} exists already.`)
    }
    this.write(options, () => this.state.issuers.set(issuer.issuerId, structuredClone(issuer)))
  }

  async listIssuers(): Promise<IssuerRecord[]> {
    this.enter('listIssuers')
    return [...this.state.issuers.values()].map((i) => structuredClone(i))
  }

  async issuerNames(issuerIds: string[]): Promise<Map<string, string>> {
    this.enter('issuerNames')
    return new Map(
      issuerIds.flatMap((id) => {
        const issuer = this.state.issuers.get(id)
        return issuer ? [[id, issuer.name] as const] : []
      }),
    )
  }

  async createProgram(
    program: ProgramRecord,
    options?: ChangeOptions,
  ): Promise<'created' | 'issuer_not_found'> {
    this.enter('createProgram')
    this.conditions('createProgram')
    if (!this.state.issuers.has(program.issuerId)) return 'issuer_not_found'
    if (this.state.programs.has(program.programId)) {
      throw new StoreUnavailable('clash', 'A new id clashed with an existing item.')
    }
    this.write(options, () => this.state.programs.set(program.programId, structuredClone(program)))
    return 'created'
  }

  async getProgram(programId: string): Promise<ProgramRecord | undefined> {
    this.enter('getProgram')
    const program = this.state.programs.get(programId)
    return program && structuredClone(program)
  }

  async listPrograms(filter: { issuerId?: string; mode?: Mode }): Promise<ProgramRecord[]> {
    this.enter('listPrograms')
    return [...this.state.programs.values()]
      .filter((p) => filter.issuerId === undefined || p.issuerId === filter.issuerId)
      .filter((p) => filter.mode === undefined || p.mode === filter.mode)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((p) => structuredClone(p))
  }

  async setProgramStatus(
    programId: string,
    to: ProgramStatus,
    from: ProgramStatus[],
    options?: ChangeOptions,
  ): Promise<ProgramChange> {
    this.enter('setProgramStatus')
    this.conditions('setProgramStatus')
    const current = this.state.programs.get(programId)
    if (!current || !this.inScope(current, options)) return { kind: 'not_found' }
    if (!from.includes(current.status))
      return { kind: 'refused', current: structuredClone(current) }
    this.write(options, () => {
      current.status = to
    })
    return { kind: 'changed' }
  }

  async setOfferSettings(
    programId: string,
    input: Parameters<AdminStore['setOfferSettings']>[1],
    options?: ChangeOptions,
  ): Promise<ProgramChange> {
    this.enter('setOfferSettings')
    this.conditions('setOfferSettings')
    const current = this.state.programs.get(programId)
    if (!current || !this.inScope(current, options)) return { kind: 'not_found' }
    if (current.terms?.version !== input.termsVersion)
      return { kind: 'refused', current: structuredClone(current) }
    this.write(options, () => {
      Object.assign(current, structuredClone(input.set))
      for (const field of input.remove) delete current[field]
    })
    return { kind: 'changed' }
  }

  async listGrants(input: {
    programId: string
    recipientEmail?: string
    limit: number
    after?: GrantCursor
  }): Promise<Page<GrantRecord>> {
    this.enter('listGrants')
    const newestFirst = (a: GrantCursor, b: GrantCursor) =>
      b.createdAt.localeCompare(a.createdAt) || b.grantId.localeCompare(a.grantId)
    const after = input.after
    const matching = this.state.grants
      .filter((g) => g.programId === input.programId)
      .filter(
        (g) => input.recipientEmail === undefined || g.recipient.email === input.recipientEmail,
      )
      .sort(newestFirst)
      // After the cursor: the grants that sort after it, newest first.
      .filter((g) => after === undefined || newestFirst(after, g) < 0)
    const items = matching.slice(0, input.limit).map((g) => structuredClone(g))
    const last = items[items.length - 1]
    return matching.length > input.limit && last
      ? {
          items,
          nextCursor: encodeGrantCursor({ createdAt: last.createdAt, grantId: last.grantId }),
        }
      : { items }
  }

  async createApiKey(
    key: AdminKeyRecord,
    options?: ChangeOptions,
  ): Promise<'created' | 'issuer_not_found'> {
    this.enter('createApiKey')
    this.conditions('createApiKey')
    if (!this.state.issuers.has(key.issuerId)) return 'issuer_not_found'
    if (this.state.keys.has(key.keyHash) || this.byId(key.keyId)) {
      throw new StoreUnavailable('clash', 'A new id clashed with an existing item.')
    }
    this.write(options, () => this.state.keys.set(key.keyHash, structuredClone(key)))
    return 'created'
  }

  private byId(keyId: string) {
    return [...this.state.keys.values()].find((k) => k.keyId === keyId)
  }

  async findApiKeyById(keyId: string): Promise<AdminKeyRecord | undefined> {
    this.enter('findApiKeyById')
    const key = this.byId(keyId)
    return key && structuredClone(key)
  }

  async listApiKeys(filter: { issuerId?: string; mode?: Mode }): Promise<AdminKeyRecord[]> {
    this.enter('listApiKeys')
    return [...this.state.keys.values()]
      .filter((k) => filter.issuerId === undefined || k.issuerId === filter.issuerId)
      .filter((k) => filter.mode === undefined || k.mode === filter.mode)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .map((k) => structuredClone(k))
  }

  async revokeApiKey(keyHash: string, options?: ChangeOptions): Promise<KeyRevocation> {
    this.enter('revokeApiKey')
    this.conditions('revokeApiKey')
    const current = this.state.keys.get(keyHash)
    if (!current || !this.inScope(current, options)) return { kind: 'not_found' }
    if (current.status === 'revoked') return { kind: 'already_revoked' }
    this.write(options, () => {
      current.status = 'revoked'
    })
    return { kind: 'revoked' }
  }

  /** The DynamoDB condition of a roll: active, not expired at `now`, of the scope's issuer. */
  private usable(
    current: AdminKeyRecord | undefined,
    now: number,
    options: ChangeOptions | undefined,
  ): current is AdminKeyRecord {
    return (
      current !== undefined &&
      current.status === 'active' &&
      (current.expiresAt === undefined || current.expiresAt > now) &&
      this.inScope(current, options)
    )
  }

  /** The roll's condition, and the key's own limit still as it was read. */
  async setApiKeyRateLimit(change: KeyLimitChange, options?: ChangeOptions): Promise<KeyLimitSet> {
    this.enter('setApiKeyRateLimit')
    this.conditions('setApiKeyRateLimit')
    const current = this.state.keys.get(change.keyHash)
    if (!this.usable(current, change.now, options) || current.rateLimit !== change.from) {
      return { kind: 'refused', current: current && structuredClone(current) }
    }
    this.write(options, () => {
      if (change.to === undefined) delete current.rateLimit
      else current.rateLimit = change.to
    })
    return { kind: 'set' }
  }

  /** The DynamoDB condition: active, not expired at `now`, of the scope's issuer. */
  async rollApiKey(
    input: { old: ApiKeyRecord; next: AdminKeyRecord; oldExpiresAt: number; now: number },
    options?: ChangeOptions,
  ): Promise<KeyRoll> {
    this.enter('rollApiKey')
    this.conditions('rollApiKey')
    const current = this.state.keys.get(input.old.keyHash)
    if (!this.usable(current, input.now, options)) {
      return { kind: 'refused', current: current && structuredClone(current) }
    }
    if (this.state.keys.has(input.next.keyHash)) {
      throw new StoreUnavailable('clash', 'A new id clashed with an existing item.')
    }
    this.write(options, () => {
      current.expiresAt = input.oldExpiresAt
      current.rolledTo = input.next.keyId
      this.state.keys.set(input.next.keyHash, structuredClone(input.next))
    })
    return { kind: 'rolled' }
  }

  async listAudit(input: {
    issuerId: string
    limit: number
    after?: string
  }): Promise<{ items: AuditEntry[]; last?: string }> {
    this.enter('listAudit')
    const after = input.after
    const entries = this.state.audit
      .filter((e) => e.issuerId === input.issuerId)
      .sort((a, b) => b.entryId.localeCompare(a.entryId))
      .filter((e) => after === undefined || e.entryId < after)
    const items = entries.slice(0, input.limit).map((e) => structuredClone(e))
    const last = items[items.length - 1]
    return entries.length > input.limit && last ? { items, last: last.entryId } : { items }
  }

  async backfillGrantSlots(): Promise<SlotBackfill> {
    this.enter('backfillGrantSlots')
    const done: SlotBackfill = { scanned: this.state.grants.length, updated: 0, alreadySet: 0 }
    for (const grant of this.state.grants) {
      if (grant.programSlot !== undefined) continue
      grant.programSlot = grantListSlot(grant.programId, grant.grantId)
      done.updated++
    }
    return done
  }
}
