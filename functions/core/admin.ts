import {
  CURSOR_RULE,
  type EntityKind,
  InvalidId,
  InvalidInput,
  NotFound,
  StateConflict,
  WriteConflictError,
} from '../domain/admin-errors'
import {
  durationRule,
  fields,
  MAX_POOL,
  modeRule,
  nameRule,
  one,
  wholeNumberRule,
} from '../domain/admin-rules'
import { generateApiKey, hashApiKey, keyState, type Mode, maskApiKey } from '../domain/api-key'
import { decodeGrantCursor } from '../domain/grant'
import { idPattern, newId } from '../domain/ids'
import {
  applyOfferSettings,
  checkOfferSettings,
  type OfferSettingsChange,
  type OfferSettingsInput,
} from '../domain/offer-settings'
import { type Actor, type AuditEntry, actorLabel, OPERATOR } from '../domain/people'
import {
  PROGRAM_TRANSITIONS,
  type ProgramAction,
  type ProgramRecord,
  type ProgramStatus,
} from '../domain/program'
import { isValidShardCount, poolRemaining, shardsForPool } from '../domain/program-shards'
import { LOST_RACE, optimisticUpdate } from '../runtime/optimistic-update'
import { RETRY } from '../runtime/retry-policies'
import type { AdminStore } from '../stores/admin.store'
import type { AdminKeyRecord } from '../stores/api-keys.store'
import { auditEntry } from '../stores/audit'
import type { IssuerRecord } from '../stores/issuers.store'
import { decodeAuditCursor, encodeAuditCursor } from '../stores/paging'
import { StoreUnavailable } from '../stores/store-errors'

/**
 * The management use cases, one core for every door: the admin CLI (the operator) and the
 * management routes (an issuer's people) run these, with the same rules, the same store and the
 * same audit entries. Each change is written in one transaction with its audit entry.
 *
 * `who` is the person or the operator the changes are made for (and the request id of a
 * management call); a route makes one per request. A `scope` (the route's issuer) makes another
 * issuer's program or key answer exactly like one that does not exist.
 */
export type Who = { actor: Actor; requestId?: string }
export type Scope = { issuerId?: string }

const ID_KIND = { issuer: 'issuer', program: 'program', key: 'apiKey' } as const
const checkId = (kind: EntityKind, id: string | undefined) => {
  if (id === undefined || !idPattern(ID_KIND[kind]).test(id)) throw new InvalidId(kind, id ?? '')
  return id
}

export type { ProgramAction }

const GERUND = { pause: 'Pausing', resume: 'Resuming', close: 'Closing' } as const

/** A write that ran out of conflict retries, told as the change that was asked for. */
const orBusy = async <T>(change: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write()
  } catch (error) {
    if (!(error instanceof StoreUnavailable) || error.reason !== 'conflict') throw error
    throw new WriteConflictError(change, error.attempts ?? 0, error.elapsedMs ?? 0)
  }
}

export type KeyView = AdminKeyRecord & { state: 'active' | 'revoked' | 'expired' }
export type ProgramView = Omit<ProgramRecord, 'pool' | 'remaining'> & {
  pool: number | null
  remaining: number | null
}

/** The program with what is left of its pool (null: no pool, unlimited). */
export const programView = ({ shards: _, ...program }: ProgramRecord): ProgramView => ({
  ...program,
  pool: program.pool ?? null,
  remaining: poolRemaining(program.pool, program.issued),
})

/** The audit details of an offer-settings change: what changed, never the texts. */
const offerSettingsDetails = (
  change: OfferSettingsChange,
  set: ReturnType<typeof applyOfferSettings>['set'],
  termsChanged: boolean,
): AuditEntry['details'] => ({
  ...(set.offerDays === undefined ? {} : { offerDays: set.offerDays }),
  ...(change.minAge === undefined ? {} : { minAge: change.minAge }),
  ...(change.countries === undefined ? {} : { countries: change.countries?.join(',') ?? null }),
  ...(change.poolLowThreshold === undefined ? {} : { poolLowThreshold: change.poolLowThreshold }),
  ...(change.description === undefined
    ? {}
    : { description: change.description === null ? 'removed' : 'changed' }),
  ...(termsChanged && set.terms
    ? { termsVersion: set.terms.version, terms: 'url' in set.terms ? 'url' : 'text' }
    : {}),
})

export const AUDIT_PAGE = { default: 50, max: 100 } as const

export const makeAdmin = (
  store: AdminStore,
  clock: () => number = Date.now,
  who: Who = { actor: OPERATOR },
) => {
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

  const newKey = (issuerId: string, mode: Mode, expiresAt?: number) => {
    const secret = generateApiKey(mode)
    const record: AdminKeyRecord = {
      keyHash: hashApiKey(secret),
      keyId: newId('apiKey'),
      issuerId,
      mode,
      status: 'active',
      createdAt: iso(),
      createdBy: actorLabel(who.actor),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...maskApiKey(secret),
    }
    return { secret, record }
  }

  const keyView = (key: AdminKeyRecord): KeyView => ({ ...key, state: keyState(key, clock()) })

  const programRefused = (programId: string, action: ProgramAction, current: ProgramStatus) =>
    new StateConflict(
      'program',
      programId,
      current,
      current === 'closed'
        ? `Program ${programId} is closed; closing is final.`
        : `Program ${programId} is ${current}; cannot ${action} it.`,
    )

  return {
    async createIssuer(input: { name?: unknown }): Promise<IssuerRecord> {
      const issuer = {
        issuerId: newId('issuer'),
        name: one('name', input.name, nameRule),
        createdAt: iso(),
      }
      await orBusy('Creating the issuer', () =>
        store.createIssuer(issuer, {
          audit: audit(
            issuer.issuerId,
            'issuer.create',
            { type: 'issuer', id: issuer.issuerId },
            { name: issuer.name },
          ),
        }),
      )
      return issuer
    },

    listIssuers: async () =>
      (await store.listIssuers()).sort((a, b) => a.createdAt.localeCompare(b.createdAt)),

    async createProgram(input: {
      issuer?: string
      mode?: unknown
      name?: unknown
      /** A JSON number, or the CLI's digits; absent or null: no pool, unlimited. */
      pool?: unknown
      /** Counter shards (1 to MAX_SHARDS); absent: shardsForPool. The operator's choice only. */
      shards?: number
    }): Promise<ProgramRecord> {
      const issuerId = checkId('issuer', input.issuer)
      const check = fields()
      const mode = check.check('mode', input.mode, modeRule)
      const name = check.check('name', input.name, nameRule)
      const pool =
        input.pool === undefined || input.pool === null
          ? undefined
          : check.check('pool', input.pool, wholeNumberRule(MAX_POOL))
      check.done()
      const program: ProgramRecord = {
        programId: newId('program'),
        issuerId,
        mode,
        name,
        status: 'active',
        issued: 0,
        ...(pool === undefined ? {} : { pool }),
        // The pool lives in the shards' slices (functions/domain/program-shards.ts).
        shards:
          input.shards !== undefined && isValidShardCount(input.shards)
            ? input.shards
            : shardsForPool(pool),
        createdAt: iso(),
      }
      const outcome = await orBusy('Creating the program', () =>
        store.createProgram(program, {
          audit: audit(
            issuerId,
            'program.create',
            { type: 'program', id: program.programId },
            { mode, name, pool: pool ?? null },
          ),
        }),
      )
      if (outcome === 'issuer_not_found') throw new NotFound('issuer', issuerId)
      return program
    },

    // async: a broken filter rejects like every other refusal, never throws at the call.
    listPrograms: async (filter: { issuer?: string; mode?: unknown }) =>
      store.listPrograms({
        ...(filter.issuer === undefined ? {} : { issuerId: checkId('issuer', filter.issuer) }),
        ...(filter.mode === undefined ? {} : { mode: one('mode', filter.mode, modeRule) }),
      }),

    async showProgram(programId: string, scope?: Scope): Promise<ProgramView> {
      return programView(await requireProgram(programId, scope))
    },

    /**
     * pause (from active), resume (from paused), close (from either; final). The write is
     * conditioned on the status it read, so the audit entry's `from` is exact; if the status moved
     * in between to another one the change still allows, it tries again from there.
     */
    async changeProgramStatus(
      programId: string,
      action: ProgramAction,
      scope?: Scope,
    ): Promise<ProgramRecord> {
      const { to, from } = PROGRAM_TRANSITIONS[action]
      // The head as the last refusal told it: its status; the totals read first stay.
      let latest = await requireProgram(programId, scope)
      return optimisticUpdate(latest, {
        policy: RETRY.managementRace,
        reread: async () => latest,
        exhausted: () => {
          throw programRefused(programId, action, latest.status)
        },
        attempt: async (program) => {
          if (!from.includes(program.status)) {
            throw programRefused(programId, action, program.status)
          }
          const seen = program.status
          const outcome = await orBusy(`${GERUND[action]} program ${programId}`, () =>
            store.setProgramStatus(programId, to, [seen], {
              ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
              audit: audit(
                program.issuerId,
                `program.${action}`,
                { type: 'program', id: programId },
                { from: seen, to },
              ),
            }),
          )
          if (outcome.kind === 'changed') return { ...program, status: to }
          if (outcome.kind === 'not_found') throw new NotFound('program', programId)
          latest = { ...program, status: outcome.current.status }
          return LOST_RACE
        },
      })
    },

    /**
     * A program's offer settings (the offer window of new grants, eligibility, description, terms):
     * checked all at once, then written on the terms' version as read, so a change of the terms
     * makes exactly the next version; the audit entry names what changed (not the texts).
     */
    async setOfferSettings(
      programId: string,
      input: OfferSettingsInput,
      scope?: Scope,
    ): Promise<ProgramRecord> {
      const checked = checkOfferSettings(input)
      if ('problems' in checked) throw new InvalidInput(checked.problems)
      let latest = await requireProgram(programId, scope)
      return optimisticUpdate(latest, {
        policy: RETRY.managementRace,
        reread: async () => latest,
        exhausted: () => {
          throw new StateConflict(
            'program',
            programId,
            latest.status,
            `The terms of program ${programId} changed while saving; reload and try again.`,
          )
        },
        attempt: async (program) => {
          const { set, remove, termsChanged } = applyOfferSettings(program, checked.change)
          // The same terms again, and nothing else: nothing to write, nothing to audit.
          if (Object.keys(set).length === 0 && remove.length === 0) return program
          const outcome = await orBusy(`Changing the offer settings of program ${programId}`, () =>
            store.setOfferSettings(
              programId,
              { set, remove, termsVersion: program.terms?.version },
              {
                ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
                audit: audit(
                  program.issuerId,
                  'program.offer_settings',
                  { type: 'program', id: programId },
                  offerSettingsDetails(checked.change, set, termsChanged),
                ),
              },
            ),
          )
          if (outcome.kind === 'not_found') throw new NotFound('program', programId)
          if (outcome.kind === 'changed') {
            const next: ProgramRecord = { ...program, ...set }
            for (const field of remove) delete next[field]
            return next
          }
          // Another change of the terms won: decide again from the head as it is now (the
          // counters summed at the first read stay: a head alone has no sums).
          // A head keeps only `hasText`: its text (to compare with) is read with it again.
          const { issued, remaining } = program
          latest = outcome.current.terms?.hasText
            ? await requireProgram(programId, scope)
            : { ...outcome.current, issued, ...(remaining === undefined ? {} : { remaining }) }
          return LOST_RACE
        },
      })
    },

    async createKey(input: {
      issuer?: string
      mode?: unknown
      /** `90d`, `24h`, ...; absent or null: the key does not expire. */
      expiresIn?: unknown
    }) {
      const issuerId = checkId('issuer', input.issuer)
      const check = fields()
      const mode = check.check('mode', input.mode, modeRule)
      const ttl =
        input.expiresIn === undefined || input.expiresIn === null
          ? undefined
          : check.check('expiresIn', input.expiresIn, durationRule({ zero: false }))
      check.done()
      const key = newKey(issuerId, mode, ttl === undefined ? undefined : clock() + ttl)
      const outcome = await orBusy('Creating the key', () =>
        store.createApiKey(key.record, {
          audit: audit(
            issuerId,
            'key.create',
            { type: 'key', id: key.record.keyId },
            {
              mode,
              expiresAt:
                key.record.expiresAt === undefined
                  ? null
                  : new Date(key.record.expiresAt).toISOString(),
            },
          ),
        }),
      )
      if (outcome === 'issuer_not_found') throw new NotFound('issuer', issuerId)
      return key
    },

    listKeys: async (filter: { issuer?: string; mode?: unknown }) =>
      (
        await store.listApiKeys({
          ...(filter.issuer === undefined ? {} : { issuerId: checkId('issuer', filter.issuer) }),
          ...(filter.mode === undefined ? {} : { mode: one('mode', filter.mode, modeRule) }),
        })
      ).map(keyView),

    /** Takes effect on the grant API's very next request. Revoking a revoked key changes nothing. */
    async revokeKey(keyId: string, scope?: Scope): Promise<KeyView> {
      const key = await requireKey(keyId, scope)
      const outcome = await orBusy(`Revoking key ${keyId}`, () =>
        store.revokeApiKey(key.keyHash, {
          ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
          audit: audit(key.issuerId, 'key.revoke', { type: 'key', id: keyId }),
        }),
      )
      if (outcome.kind === 'not_found') throw new NotFound('key', keyId)
      return keyView({ ...key, status: 'revoked' })
    },

    /**
     * Like Stripe's roll: a new key now; the old one keeps working for the grace period, then
     * stops (never later than it would have anyway). The new key keeps the old one's expiry.
     */
    async rollKey(keyId: string, grace: unknown = '24h', scope?: Scope) {
      const graceMs = one('grace', grace ?? '24h', durationRule({ zero: true }))
      const old = await requireKey(keyId, scope)
      const refused = (state: string) =>
        new StateConflict(
          'key',
          keyId,
          state,
          `Key ${keyId} is ${state}; only an active key can be rolled.`,
        )
      if (keyView(old).state !== 'active') throw refused(keyView(old).state)
      const now = clock()
      const oldExpiresAt = Math.min(old.expiresAt ?? Number.POSITIVE_INFINITY, now + graceMs)
      const next = newKey(old.issuerId, old.mode, old.expiresAt)
      const outcome = await orBusy(`Rolling key ${keyId}`, () =>
        store.rollApiKey(
          { old, next: next.record, oldExpiresAt, now },
          {
            ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
            audit: audit(
              old.issuerId,
              'key.roll',
              { type: 'key', id: keyId },
              { newKeyId: next.record.keyId, oldExpiresAt: new Date(oldExpiresAt).toISOString() },
            ),
          },
        ),
      )
      if (outcome.kind === 'refused') {
        const current = outcome.current
        if (!current || !inScope(current.issuerId, scope)) throw new NotFound('key', keyId)
        const state = keyView(current).state
        throw state === 'active'
          ? new StateConflict('key', keyId, state, `Key ${keyId} changed while rolling it.`)
          : refused(state)
      }
      return {
        ...next,
        old: keyView({ ...old, expiresAt: oldExpiresAt, rolledTo: next.record.keyId }),
      }
    },

    async listGrants(input: {
      program?: string
      recipient?: string
      limit?: string
      cursor?: string
    }) {
      const programId = checkId('program', input.program)
      const check = fields()
      const limit =
        input.limit === undefined ? 50 : check.check('limit', input.limit, wholeNumberRule(1000))
      // The cursor is checked before any read, as the grant API does (grant-list-query.ts).
      const after = input.cursor === undefined ? undefined : decodeGrantCursor(input.cursor)
      if (input.cursor !== undefined && after === undefined) check.add('cursor', CURSOR_RULE)
      check.done()
      // An unknown program is an error, as for `program show`, not an empty list.
      await requireProgram(programId)
      const recipient = input.recipient?.trim().toLowerCase()
      return store.listGrants({
        programId,
        limit,
        ...(recipient === undefined ? {} : { recipientEmail: recipient }),
        ...(after === undefined ? {} : { after }),
      })
    },

    /**
     * Gives the grants written before `byProgramSlot` existed their slot, so that listings on it
     * show them (docs/deploying.md, "Upgrading a stage"). Idempotent: a second run updates nothing.
     */
    backfillGrantSlots() {
      return store.backfillGrantSlots()
    },

    /**
     * The issuer's audit log, newest first, a page at a time. The cursor is opaque (the last
     * entry's id) and checked before any read: one that did not come from here is refused.
     */
    async listAudit(input: { issuer?: string; cursor?: unknown; limit?: unknown }) {
      const issuerId = checkId('issuer', input.issuer)
      const check = fields()
      const limit =
        input.limit === undefined
          ? AUDIT_PAGE.default
          : check.check('limit', input.limit, wholeNumberRule(AUDIT_PAGE.max))
      let after: string | undefined
      if (input.cursor !== undefined) {
        after = decodeAuditCursor(input.cursor)
        if (after === undefined) check.add('cursor', CURSOR_RULE)
      }
      check.done()
      const page = await store.listAudit({
        issuerId,
        limit,
        ...(after === undefined ? {} : { after }),
      })
      return {
        entries: page.items,
        nextCursor: page.last === undefined ? null : encodeAuditCursor(page.last),
      }
    },
  }
}

export type Admin = ReturnType<typeof makeAdmin>
