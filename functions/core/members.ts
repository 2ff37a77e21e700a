import { MemberActive, MemberExists, MemberNotFound, ValidationFailed } from '../domain/errors'
import { ChangeRoleSchema, InviteMemberSchema } from '../domain/member-request.schema'
import { actorLabel, type MembershipRecord, type Role } from '../domain/people'
import { zodIssuesToFieldErrors } from '../domain/validation'
import {
  type Caller,
  type Emailed,
  type MemberSteps,
  type MembersDeps,
  memberSteps,
} from './member-steps'

export type { Caller, Emailed, MembersDeps } from './member-steps'

/** A member as the routes answer and the CLI prints: the person's sub is the member id. */
export type MemberView = {
  memberId: string
  email: string
  role: Role
  status: 'invited' | 'active'
  createdAt: string
  invitedBy: string
}

export const toMemberView = (record: MembershipRecord): MemberView => ({
  memberId: record.sub,
  email: record.email,
  role: record.role,
  status: record.status,
  createdAt: record.createdAt,
  invitedBy: record.invitedBy,
})

const byCreated = (a: MembershipRecord, b: MembershipRecord) =>
  a.createdAt.localeCompare(b.createdAt) || a.email.localeCompare(b.email)

const parse = <T>(
  schema: {
    safeParse: (input: unknown) => { success: true; data: T } | { success: false; error: unknown }
  },
  body: unknown,
): T => {
  const result = schema.safeParse(body)
  if (result.success) return result.data
  throw new ValidationFailed(
    zodIssuesToFieldErrors(result.error as Parameters<typeof zodIssuesToFieldErrors>[0]),
  )
}

/** Reading members, and changing or removing one: each change read, decided and written again. */
const memberChanges = ({
  store,
  audit,
  requireMember,
  requireIssuerName,
  witnessFor,
  readDecideWrite,
}: MemberSteps) => ({
  /** The issuer's name; `issuer_not_found` when there is none (the CLI checks ids with it). */
  issuerName: (issuerId: string, signal?: AbortSignal) => requireIssuerName(issuerId, signal),

  /**
   * Members and pending invitations, oldest first. The identity provider is not asked: a
   * membership is `invited` until the person signs in after being added (acceptInvitations),
   * whether or not they had an account before, so the list tells an issuer nothing about
   * accounts elsewhere.
   */
  async list(issuerId: string, caller: Pick<Caller, 'signal'> = {}): Promise<MemberView[]> {
    const records = (await store.list(issuerId, { signal: caller.signal })).sort(byCreated)
    return records.map(toMemberView)
  },

  /**
   * The person has signed in (GET /manage/me, which the console calls after every sign-in):
   * every pending membership of theirs becomes `active`. `issuerIds`: their issuers, as the
   * caller has just read them.
   */
  acceptInvitations: (sub: string, issuerIds: readonly string[], signal?: AbortSignal) =>
    store.acceptInvitations(sub, issuerIds, { signal }),

  /**
   * Gives a member another role. The same role again: nothing written. An owner who would stop
   * being one needs another owner left (`409 last_owner`), checked inside the transaction.
   */
  async changeRole(issuerId: string, memberId: string, body: unknown, caller: Caller) {
    const { role } = parse(ChangeRoleSchema, body)
    return readDecideWrite(caller.signal, async () => {
      const current = await requireMember(issuerId, memberId, caller)
      if (current.role === role) {
        return {
          outcome: 'done' as const,
          value: { member: toMemberView(current), changed: false },
        }
      }
      const witness =
        current.role === 'owner' ? await witnessFor(current, caller.signal) : undefined
      const entry = audit(issuerId, caller, 'member.role', memberId, {
        email: current.email,
        from: current.role,
        to: role,
      })
      const outcome = await store.changeRole({ current, role, witness }, entry, {
        signal: caller.signal,
      })
      return { outcome, value: { member: toMemberView({ ...current, role }), changed: true } }
    })
  },

  /**
   * Removes a member, or withdraws a pending invitation: their very next management call is
   * answered 404. The account stays (the person may belong to other issuers) and opens nothing
   * here any more. The last owner cannot be removed (`409 last_owner`).
   */
  async remove(issuerId: string, memberId: string, caller: Caller): Promise<MemberView> {
    return readDecideWrite(caller.signal, async () => {
      const current = await requireMember(issuerId, memberId, caller)
      const witness =
        current.role === 'owner' ? await witnessFor(current, caller.signal) : undefined
      const entry = audit(issuerId, caller, 'member.remove', memberId, {
        email: current.email,
        role: current.role,
        status: current.status,
      })
      const outcome = await store.remove({ current, witness }, entry, { signal: caller.signal })
      return { outcome, value: toMemberView(current) }
    })
  },
})

/** Inviting a person, and sending a pending invitation again. */
const invitations = ({
  audit,
  deps,
  notifyExisting,
  now,
  requireIssuerName,
  requireMember,
  readDecideWrite,
  store,
}: MemberSteps) => ({
  /**
   * Invites a person by e-mail into the issuer with a role: `invited` until they next sign in,
   * and the same answer whether or not the address already has an account (an issuer must not
   * learn which addresses have accounts). What the person receives:
   * - a new address: an account and the invitation e-mail with a temporary password (the
   *   identity provider sends it);
   * - an account still waiting for its first sign-in (invited by another issuer): a new
   *   invitation e-mail naming this issuer and every other with a pending invitation, since its
   *   temporary password replaces theirs;
   * - an account with a password of its own: an e-mail saying who added them, to which issuer
   *   (the service's mailer; none configured: not sent, logged).
   * An address already a member of this issuer: `409 member_exists`, nothing sent or written.
   * The membership and its `member.invite` audit entry are one transaction; the e-mail to an
   * existing account goes out after it (a failure to send is logged, the membership stays, and
   * "resend" sends it again).
   *
   * A new account is created before the membership is written: when that write fails
   * (DynamoDB unavailable), the account exists without a membership and opens nothing; inviting
   * again finds it and writes the membership.
   */
  async invite(issuerId: string, body: unknown, caller: Caller) {
    const { email, role } = parse(InviteMemberSchema, body)
    const issuerName = await requireIssuerName(issuerId, caller.signal)
    const members = await store.list(issuerId, { signal: caller.signal })
    if (members.some((m) => m.email === email)) throw new MemberExists(email)

    const identity = deps.identity()
    const account = await identity.invite({ email, issuerName })
    const record: MembershipRecord = {
      issuerId,
      sub: account.sub,
      email,
      role,
      status: 'invited',
      createdAt: new Date(now()).toISOString(),
      invitedBy: actorLabel(caller.actor),
    }
    const member = await readDecideWrite(caller.signal, async () => {
      // No word of whether an account existed: owners and viewers read the audit log.
      const entry = audit(issuerId, caller, 'member.invite', account.sub, { email, role })
      const outcome = await store.add(record, entry, { signal: caller.signal })
      if (outcome === 'exists') throw new MemberExists(email)
      return { outcome, value: toMemberView(record) }
    })
    let emailed: Emailed = 'invitation'
    if (!account.created) {
      try {
        emailed = await notifyExisting(record, issuerName, account.status, caller.signal)
      } catch (error) {
        emailed = 'none'
        deps.warn?.('member added, e-mail not sent', {
          issuerId,
          memberId: record.sub,
          error: (error as Error).name,
        })
      }
    }
    // accountCreated and emailed are for the operator's CLI only; the HTTP answer is the member.
    return { member, accountCreated: account.created, emailed }
  },

  /**
   * Sends a pending invitation again (also the way back once the 7 days have run out), with the
   * same answer whatever the person's account looks like: to an account still waiting for its
   * first sign-in, a new temporary password in an e-mail naming this issuer and every other with
   * a pending invitation (the new password replaces the one all their earlier e-mails carried);
   * to an account with a password of its own, the e-mail saying who added them. A membership
   * already accepted (the person signed in since): `409 member_active`, nothing sent. The e-mail
   * goes out first, then the `member.resend` audit entry is written (on condition that the
   * invitation is still pending); an e-mail cannot be part of a transaction, and an audit entry
   * for an e-mail that was never sent would be worse than the reverse.
   */
  async resend(issuerId: string, memberId: string, caller: Caller): Promise<MemberView> {
    const current = await requireMember(issuerId, memberId, caller)
    if (current.status === 'active') throw new MemberActive()
    const issuerName = await requireIssuerName(issuerId, caller.signal)
    await notifyExisting(current, issuerName, 'invited', caller.signal)
    return readDecideWrite(caller.signal, async () => {
      const entry = audit(issuerId, caller, 'member.resend', memberId, { email: current.email })
      const outcome = await store.recordResend(current, entry, { signal: caller.signal })
      if (outcome === 'stale') {
        // Removed, or signed in, between the read and the write: say which.
        const latest = await store.get(issuerId, memberId, { signal: caller.signal })
        if (!latest) throw new MemberNotFound(memberId)
        throw new MemberActive()
      }
      return { outcome, value: toMemberView(current) }
    })
  },
})

/**
 * The members of an issuer: the one core behind the member routes and the admin CLI's `member`
 * commands. Who may call what (owner, viewer) is the caller's business (the management handler
 * checks the role on every request; the CLI is the operator); everything about the members
 * themselves is decided here, once.
 */
export const makeMembers = (deps: MembersDeps) => {
  const steps = memberSteps(deps)
  return { ...memberChanges(steps), ...invitations(steps) }
}

export type Members = ReturnType<typeof makeMembers>
