import type { Mode } from '../../domain/api-key'
import { ResendTooSoon, TestModeOnly } from '../../domain/errors'
import type { GrantRecord, RecipientIdentity } from '../../domain/grant'
import { actorOnHistory, type GrantActor, type RejectionReason } from '../../domain/grant-lifecycle'
import type { ProgramValueHead } from '../../domain/program-value'
import { isOpen, type TestMoveTarget } from '../../domain/recipient-offer'
import {
  type AuditInput,
  auditOf,
  type LifeContext,
  type Owner,
  owned,
  RESEND_GAP_MS,
  refusalError,
} from './life-context'
import { move, writeOnOpen } from './transition'

export type RecipientBalance = {
  email: string
  name?: string
  programId: string
  /** Shares of accepted grants. */
  accepted: number
  /** Shares of reserved and offered grants. */
  pending: number
  grants: GrantRecord[]
  identity?: RecipientIdentity
  /** The program's current value of a share (issue 32), from its head; absent: none set. */
  value?: ProgramValueHead
}

type ByActor = { grantId: string; issuerId: string; actor: GrantActor; audit?: AuditInput }

/**
 * The TEST-only move of a grant to `to` through the transitions a recipient would make; the
 * grant as it ends.
 */
export const testMove = async (
  ctx: LifeContext,
  input: Owner & { grantId: string; mode: Mode; to: TestMoveTarget; reason?: RejectionReason },
): Promise<GrantRecord> => {
  if (input.mode !== 'TEST') throw new TestModeOnly()
  let grant = await owned(ctx.store, input.grantId, input)
  if (grant.mode !== 'TEST') throw new TestModeOnly()
  const actor: GrantActor = { kind: 'simulation' }
  const reason = input.to === 'rejected' ? (input.reason ?? 'declined') : undefined
  if (grant.status === input.to && (reason === undefined || grant.rejectionReason === reason)) {
    return grant
  }
  const identity: RecipientIdentity = {
    name: grant.recipient.name ?? 'TEST recipient',
    at: ctx.iso(),
  }
  switch (input.to) {
    case 'offered':
      return move(ctx, grant, { kind: 'identify' }, actor, { identity })
    case 'accepted':
      if (grant.status === 'reserved') {
        grant = await move(ctx, grant, { kind: 'identify' }, actor, { identity })
      }
      return move(ctx, grant, { kind: 'accept' }, actor, {
        acceptance: { termsVersion: 0, at: ctx.iso() },
      })
    case 'rejected':
      if (reason === 'declined') return move(ctx, grant, { kind: 'decline' }, actor)
      if (grant.status !== 'reserved') throw refusalError(grant, 'already_offered')
      return move(ctx, grant, { kind: 'identify', ineligible: reason }, actor, { identity })
    case 'expired':
      return move(ctx, grant, { kind: 'expire' }, actor)
    case 'canceled':
      return move(ctx, grant, { kind: 'cancel' }, actor)
  }
}

/** The issuer's resend: one more mail of the open grant's offer, at most once per RESEND_GAP_MS. */
export const resend = async (ctx: LifeContext, input: ByActor): Promise<GrantRecord> =>
  writeOnOpen(ctx, await owned(ctx.store, input.grantId, input), async (grant) => {
    const now = ctx.clock()
    const audit = auditOf(ctx.clock, grant, input.actor, 'grant.resend', input.audit)
    const outcome = await ctx.store.requestResend(grant, {
      now,
      minGapMs: RESEND_GAP_MS,
      ...(audit === undefined ? {} : { audit }),
    })
    if (outcome !== 'too_soon') return outcome
    const last = Date.parse(grant.offer?.resendRequestedAt ?? grant.offer?.lastSentAt ?? '')
    throw new ResendTooSoon(Math.max(1, Math.ceil((last + RESEND_GAP_MS - now) / 1000)))
  })

/** The open grant's address corrected: earlier links stop working. */
export const correctEmail = async (
  ctx: LifeContext,
  input: ByActor & { email: string },
): Promise<GrantRecord> => {
  const email = input.email.trim().toLowerCase()
  return writeOnOpen(ctx, await owned(ctx.store, input.grantId, input), async (grant) => {
    if (grant.recipient.email === email) return grant
    const audit = auditOf(ctx.clock, grant, input.actor, 'grant.correct_email', input.audit)
    return ctx.store.correctEmail(grant, {
      email,
      entry: {
        at: ctx.iso(),
        event: 'address',
        actor: actorOnHistory(input.actor),
        detail: 'recipient address corrected; earlier links no longer work',
      },
      ...(audit === undefined ? {} : { audit }),
    })
  })
}

/** A recipient's grants in one program, and the shares accepted and pending. */
export const balance = async (
  { store }: LifeContext,
  input: { issuerId: string; mode: Mode; programId: string; email: string },
): Promise<RecipientBalance> => {
  const email = input.email.trim().toLowerCase()
  // Every one of them, however many: a balance that stopped at a page would be wrong.
  const grants = await store.grantsOfRecipient(email, {
    issuerId: input.issuerId,
    mode: input.mode,
    programId: input.programId,
  })
  const sum = (keep: (g: GrantRecord) => boolean) =>
    grants.filter(keep).reduce((total, g) => total + g.amount, 0)
  const identity = grants.find((g) => g.identity !== undefined)?.identity
  const name = grants.find((g) => g.recipient.name !== undefined)?.recipient.name
  return {
    email,
    ...(name === undefined ? {} : { name }),
    programId: input.programId,
    accepted: sum((g) => g.status === 'accepted'),
    pending: sum((g) => isOpen(g.status)),
    grants,
    ...(identity === undefined ? {} : { identity }),
  }
}

/** What the issuer's people, the CLI and an integrator's key do to one grant. */
export const issuerActions = (ctx: LifeContext) => ({
  async cancel(input: Owner & { grantId: string; actor: GrantActor; audit?: AuditInput }) {
    const grant = await owned(ctx.store, input.grantId, input)
    if (grant.status === 'canceled') return grant
    return move(ctx, grant, { kind: 'cancel' }, input.actor, {
      audit: (g) => auditOf(ctx.clock, g, input.actor, 'grant.cancel', input.audit),
      accept: (_refusal, g) => g.status === 'canceled',
    })
  },
  testMove: (
    input: Owner & { grantId: string; mode: Mode; to: TestMoveTarget; reason?: RejectionReason },
  ) => testMove(ctx, input),
  resend: (input: ByActor) => resend(ctx, input),
  correctEmail: (input: ByActor & { email: string }) => correctEmail(ctx, input),
  balance: (input: { issuerId: string; mode: Mode; programId: string; email: string }) =>
    balance(ctx, input),
})
