import { createHash } from 'node:crypto'
import type { ApiKeyRecord, Mode } from '../../domain/api-key'
import { keyAuthorizes } from '../../domain/api-key'
import { auditEntry } from '../../domain/audit-entry'
import { IdempotencyKeyReused, InvalidApiKey, ProgramNotFound } from '../../domain/errors'
import type { GrantRecord, GrantSender } from '../../domain/grant'
import { offerExpiresAt } from '../../domain/grant-lifecycle'
import { grantListSlot } from '../../domain/grant-slots'
import { idempotentGrantId, newId } from '../../domain/ids'
import { ownedBy } from '../../domain/program'
import type { GrantAuthority } from '../../stores/grants.store'
import type { ProgramAccess } from '../access-cache'

/**
 * A member of the issuer sending through the management API. The route has checked, on this
 * request, that they belong to `issuerId` with a role that may send; the program must belong to
 * that issuer (another issuer's answers as a missing one), and the Idempotency-Key is scoped to
 * issuer and mode, exactly as the API's.
 */
export type MemberSender = {
  issuerId: string
  sentBy: GrantSender
  /**
   * The program's mode when the caller already knows it (a batch, from its program): no read.
   * Otherwise the program is read first, for its issuer and mode.
   */
  mode?: Mode
  /** The audit entry written in the grant's transaction (absent for the rows of a batch). */
  audit?: { requestId?: string }
  /** For the rows of a batch: the batch and the row, recorded on the grant. */
  batch?: { batchId: string; row: number }
}

export type GrantTokensResult = { grant: GrantRecord; replayed: boolean }

/** What the request asks for, as its schema parsed it. */
export type GrantAsk = {
  recipient: { email: string; name?: string | null | undefined }
  reason: string
  amount: number
}

/**
 * On whose authority the grant is written: the key (valid for its mode now), or the member's
 * issuer, whose program it must be (another issuer's answers as a missing one).
 */
export const authorityOf = (
  checked: { key: ApiKeyRecord | undefined; program: ProgramAccess | undefined },
  programId: string,
  credential: { mode: Mode } | undefined,
  member: MemberSender | undefined,
  now: number,
): GrantAuthority => {
  if (credential) {
    const key = checked.key
    if (!keyAuthorizes(key, credential.mode, now)) throw new InvalidApiKey()
    return {
      kind: 'key',
      key: { keyHash: key.keyHash, keyId: key.keyId, issuerId: key.issuerId, mode: key.mode },
    }
  }
  const sender = member as MemberSender
  const program = checked.program
  // Issuer and mode of a program never change.
  if (!ownedBy(program?.head, sender.issuerId)) throw new ProgramNotFound(programId)
  return { kind: 'issuer', issuerId: sender.issuerId, mode: sender.mode ?? program.head.mode }
}

/** The grant as it is written, from the request, its authority and the program's head. */
export const newGrantRecord = ({
  ask,
  programId,
  authority,
  idempotencyKey,
  member,
  offerDays,
  createdAt,
  requestId,
}: {
  ask: GrantAsk
  programId: string
  authority: GrantAuthority
  idempotencyKey: string | undefined
  member: MemberSender | undefined
  offerDays: number | undefined
  /** One reading of the clock: the offer window runs from the grant's own createdAt. */
  createdAt: number
  /** The request that makes it (the request log), when it came over HTTP. */
  requestId?: string | undefined
}): GrantRecord => {
  const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority
  // "" and null are how existing integrations say "no name": stored as no name at all.
  const name = ask.recipient.name || undefined
  const recipient =
    name === undefined ? { email: ask.recipient.email } : { email: ask.recipient.email, name }
  const grantId =
    idempotencyKey === undefined
      ? newId('grant')
      : idempotentGrantId(issuerId, mode, idempotencyKey)
  return {
    grantId,
    programId,
    issuerId,
    mode,
    recipient,
    reason: ask.reason,
    amount: ask.amount,
    status: 'reserved',
    createdAt: new Date(createdAt).toISOString(),
    requestHash: requestHash(programId, recipient, ask.reason, ask.amount),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    ...(authority.kind === 'key' ? { keyId: authority.key.keyId } : {}),
    ...(requestId === undefined ? {} : { requestId }),
    ...(member === undefined ? {} : { sentBy: member.sentBy }),
    ...(member?.batch === undefined ? {} : { batch: member.batch }),
    programSlot: grantListSlot(programId, grantId),
    // The offer window is the program's when the grant is made (its head is already at hand).
    expiresAt: offerExpiresAt(createdAt, offerDays),
    recipientKey: recipient.email,
  }
}

/** One audit entry per member's send, in the grant's own transaction; a replay writes none. */
export const sendAudit = (grant: GrantRecord, member: MemberSender | undefined, now: number) =>
  member?.audit === undefined
    ? undefined
    : auditEntry({
        issuerId: grant.issuerId,
        actor: { kind: 'person', ...member.sentBy },
        action: 'grant.send',
        target: { type: 'grant', id: grant.grantId },
        now,
        requestId: member.audit.requestId,
        details: {
          programId: grant.programId,
          mode: grant.mode,
          amount: grant.amount,
          recipient: grant.recipient.email,
        },
      })

/** A grant made under this Idempotency-Key: the same request replays it, another is refused. */
export const replayOf = (existing: GrantRecord, grant: GrantRecord): GrantTokensResult => {
  if (existing.requestHash !== grant.requestHash) throw new IdempotencyKeyReused()
  return { grant: existing, replayed: true }
}

export const requestHash = (
  programId: string,
  recipient: GrantRecord['recipient'],
  reason: string,
  amount: number,
) =>
  createHash('sha256')
    .update(JSON.stringify([programId, recipient.email, recipient.name ?? null, reason, amount]))
    .digest('hex')
