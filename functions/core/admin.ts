import { CURSOR_RULE } from '../domain/admin-errors'
import { fields, wholeNumberRule } from '../domain/admin-rules'
import { decodeAuditCursor, encodeAuditCursor } from '../domain/audit-entry'
import { decodeGrantCursor } from '../domain/grant'
import { OPERATOR } from '../domain/people'
import type { AdminStore } from '../stores/admin.store'
import { type AdminContext, adminContext, checkId, type Who } from './admin-context'
import { keyLimits } from './admin-key-limits'
import { keyActions } from './admin-keys'
import { programActions, programChanges } from './admin-programs'

/**
 * The management use cases, one core for every door: the admin CLI (the operator) and the
 * management routes (an issuer's people) run these, with the same rules, the same store and the
 * same audit entries. Each change is written in one transaction with its audit entry. The groups
 * live beside it (admin-programs.ts, admin-keys.ts, admin-key-limits.ts) over one context
 * (admin-context.ts).
 */
export type { ProgramAction } from '../domain/program'
export type { KeyView, Scope, Who } from './admin-context'
export { type ProgramView, programView } from './admin-programs'

export const AUDIT_PAGE = { default: 50, max: 100 } as const

/** The grant listing, the audit log and the slot backfill. */
const listings = ({ store, requireProgram }: AdminContext) => ({
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
})

export const makeAdmin = (
  store: AdminStore,
  clock: () => number = Date.now,
  who: Who = { actor: OPERATOR },
) => {
  const context = adminContext(store, clock, who)
  return {
    ...programActions(context),
    ...programChanges(context),
    ...keyActions(context),
    ...keyLimits(context),
    ...listings(context),
  }
}

export type Admin = ReturnType<typeof makeAdmin>
