import { InvalidInput, NotFound, StateConflict } from '../domain/admin-errors'
import { fields, MAX_POOL, modeRule, nameRule, one, wholeNumberRule } from '../domain/admin-rules'
import { newId } from '../domain/ids'
import {
  applyOfferSettings,
  checkOfferSettings,
  type OfferSettingsChange,
  type OfferSettingsInput,
} from '../domain/offer-settings'
import type { AuditEntry } from '../domain/people'
import {
  PROGRAM_TRANSITIONS,
  type ProgramAction,
  type ProgramRecord,
  type ProgramStatus,
} from '../domain/program'
import { isValidShardCount, poolRemaining, shardsForPool } from '../domain/program-shards'
import { LOST_RACE, optimisticUpdate } from '../runtime/optimistic-update'
import * as RETRY from '../runtime/retry-policies'
import type { IssuerRecord } from '../stores/issuers.store'
import { type AdminContext, checkId, orBusy, type Scope } from './admin-context'

/** The management use cases of issuers and programs (core/admin.ts makeAdmin). */

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

const GERUND = { pause: 'Pausing', resume: 'Resuming', close: 'Closing' } as const

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

const programRefused = (programId: string, action: ProgramAction, current: ProgramStatus) =>
  new StateConflict(
    'program',
    programId,
    current,
    current === 'closed'
      ? `Program ${programId} is closed; closing is final.`
      : `Program ${programId} is ${current}; cannot ${action} it.`,
  )

/** Issuers and programs: create, list, show. */
export const programActions = ({ store, iso, audit, requireProgram }: AdminContext) => ({
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
})

/** A program's status and offer settings, each written on the state as read. */
export const programChanges = ({ store, audit, requireProgram }: AdminContext) => ({
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
})
