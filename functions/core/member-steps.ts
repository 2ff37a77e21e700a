import { auditEntry } from '../domain/audit-entry'
import {
  IssuerNotFound,
  LastOwner,
  MemberNotFound,
  RequestConflict,
  ServiceUnavailable,
} from '../domain/errors'
import { idPattern } from '../domain/ids'
import { MEMBER_ID } from '../domain/member-request.schema'
import type { Actor, AuditEntry, MembershipRecord } from '../domain/people'
import type { IdentityProvider } from '../identity/identity-provider'
import { renderAddedMessage } from '../identity/invitation-message'
import type { Mailer } from '../mail/mailer'
import { LOST_RACE, optimisticUpdate } from '../runtime/optimistic-update'
import * as RETRY from '../runtime/retry-policies'
import { sleep as realSleep } from '../runtime/sleep'
import type { MembersStore, WriteOutcome } from '../stores/members.store'

/** Who asks, for the audit entry: the signed-in person (and the request id), or the operator. */
export type Caller = {
  actor: Actor
  requestId?: string | undefined
  signal?: AbortSignal | undefined
}

export type MembersDeps = {
  store: MembersStore
  /**
   * The people directory, asked for on first use: only inviting, resending and listing pending
   * invitations need it, so the functions that change roles or remove members never create it.
   */
  identity: () => IdentityProvider
  /**
   * The service's own mail and the console address it links to, for the e-mail to a person who
   * already has a password and is added to another issuer. Absent (the admin CLI), or a mailer
   * with no sender: that e-mail is not sent, and a warning says so.
   */
  mail?: () => { mailer: Mailer; consoleUrl: string }
  now?: () => number
  /** Something went wrong that the caller's answer does not depend on (a status refresh). */
  warn?: (message: string, details: Record<string, unknown>) => void
  /**
   * Sends of one change in all, when a concurrent change got in the way (another transaction held
   * an item, the member or the other owner changed between the read and the write).
   */
  attempts?: number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

const ISSUER_ID = idPattern('issuer')

/** The provider's refusal to resend to a person who has a password (IdentityRefusal 'active'). */
const isRefusedAsActive = (error: unknown) =>
  (error as Error | undefined)?.name === 'IdentityRefusal' &&
  (error as { reason?: unknown }).reason === 'active'

/**
 * What an invitation sent: an invitation e-mail with a temporary password (a new account, or one
 * still waiting for its first sign-in), the e-mail saying who added them, or nothing (no sender, or
 * the sending failed and was logged).
 */
export type Emailed = 'invitation' | 'added' | 'none'

/** The e-mail to a person who already has an account (invited, or added to another issuer). */
const notices = ({ store, ...deps }: MembersDeps) => {
  /** The "added to an issuer" e-mail to a person with a password of their own. */
  const sendAdded = async (member: MembershipRecord, issuerName: string, signal?: AbortSignal) => {
    const mail = deps.mail?.()
    const message =
      mail &&
      renderAddedMessage({
        consoleUrl: mail.consoleUrl,
        email: member.email,
        issuerName,
        role: member.role,
        addedBy: member.invitedBy,
      })
    const outcome =
      mail && message
        ? await mail.mailer.send({ to: member.email, ...message }, { signal })
        : 'no_sender'
    if (outcome === 'no_sender') {
      // Never the address: the ids say who, docs/management-api.md why (no SES identity here).
      deps.warn?.('no mail sender configured: the added member was not e-mailed', {
        issuerId: member.issuerId,
        memberId: member.sub,
      })
      return 'none' as const
    }
    return 'added' as const
  }

  /**
   * Tells a person who already has an account about `member`: a new invitation e-mail naming
   * every issuer with a pending invitation (this one first) while they have not signed in yet,
   * otherwise the e-mail saying who added them. `status` is the account's as last seen; a
   * provider refusal because they have set a password since settles it.
   */
  const notifyExisting = async (
    member: MembershipRecord,
    issuerName: string,
    status: 'invited' | 'active',
    signal?: AbortSignal,
  ): Promise<Emailed> => {
    if (status === 'invited') {
      const otherIssuerNames = await store.pendingIssuerNames(member.sub, member.issuerId, {
        signal,
      })
      try {
        await deps
          .identity()
          .resendInvitation({ email: member.email, issuerName, otherIssuerNames })
        return 'invitation'
      } catch (error) {
        if (!isRefusedAsActive(error)) throw error
      }
    }
    return sendAdded(member, issuerName, signal)
  }

  return { notifyExisting }
}

/**
 * What the member use cases (core/members.ts) share: the audit entry of a change, the look-ups
 * that answer another issuer's member as a missing one, the owner check, the one retry of a
 * read-then-write change, and the e-mail to a person who already has an account.
 */
export const memberSteps = (deps: MembersDeps) => {
  const { store } = deps
  const now = deps.now ?? Date.now
  const attempts = deps.attempts ?? RETRY.memberChange.attempts
  const sleep = deps.sleep ?? realSleep

  const audit = (
    issuerId: string,
    caller: Caller,
    action: 'member.invite' | 'member.role' | 'member.remove' | 'member.resend',
    memberId: string,
    details: AuditEntry['details'],
  ) =>
    auditEntry({
      issuerId,
      actor: caller.actor,
      action,
      target: { type: 'member', id: memberId },
      now: now(),
      requestId: caller.requestId,
      details,
    })

  /** Another issuer's member, an unknown id, or not an id at all: the same 404, nothing written. */
  const requireMember = async (issuerId: string, memberId: string, caller: Caller) => {
    if (!MEMBER_ID.test(memberId)) throw new MemberNotFound(memberId)
    const member = await store.get(issuerId, memberId, { signal: caller.signal })
    if (!member) throw new MemberNotFound(memberId)
    return member
  }

  const requireIssuerName = async (issuerId: string, signal?: AbortSignal) => {
    const name = ISSUER_ID.test(issuerId) ? await store.issuerName(issuerId, { signal }) : undefined
    if (name === undefined) throw new IssuerNotFound(issuerId)
    return name
  }

  /**
   * Another member who is an owner, for a change that makes `member` stop being one; none:
   * `last_owner`. An active owner is preferred; a pending one counts (they hold the role).
   */
  const witnessFor = async (member: MembershipRecord, signal?: AbortSignal) => {
    const owners = (await store.list(member.issuerId, { signal })).filter(
      (m) => m.role === 'owner' && m.sub !== member.sub,
    )
    const witness = owners.find((m) => m.status === 'active') ?? owners[0]
    if (!witness) throw new LastOwner()
    return witness.sub
  }

  /**
   * Runs one read-then-write change until it is written or refused: a stale read, an owner who
   * stopped being one, or a transaction conflict make it read again (after RETRY.memberChange's
   * pause), up to `attempts` sends; then `409 request_conflict`, nothing written.
   */
  const readDecideWrite = <T>(
    signal: AbortSignal | undefined,
    attempt: () => Promise<{ outcome: WriteOutcome; value: T }>,
  ): Promise<T> =>
    optimisticUpdate(undefined, {
      attempt: async () => {
        const { outcome, value } = await attempt()
        if (outcome === 'done') return value
        if (outcome === 'unavailable') throw new ServiceUnavailable()
        return LOST_RACE
      },
      // Each try reads what it needs itself.
      reread: async () => undefined,
      exhausted: () => {
        throw new RequestConflict()
      },
      policy: { ...RETRY.memberChange, attempts },
      signal,
      sleep: async (ms, aborted) => {
        aborted?.throwIfAborted()
        await sleep(ms, aborted)
      },
    })

  return {
    store,
    deps,
    now,
    audit,
    requireMember,
    requireIssuerName,
    witnessFor,
    readDecideWrite,
    ...notices(deps),
  }
}

export type MemberSteps = ReturnType<typeof memberSteps>
