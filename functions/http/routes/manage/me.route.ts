import type { AdminStore } from '../../../stores/admin.store'
import type { MembersStore } from '../../../stores/members.store'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { manageJson, queryOf } from '../../manage-http'

/** What `GET /manage/me` reads and writes: the person's memberships, and their issuers' names. */
export type MeRouteDeps = ManageDeps & {
  readonly members: Pick<MembersStore, 'acceptInvitations'>
  readonly issuers: Pick<AdminStore, 'withSignal'>
}

/**
 * `GET /manage/me`: who the signed-in person is here, `{ email, memberships: [{ issuerId,
 * issuerName, role }] }`. Access tokens carry no e-mail, so it comes from a membership record
 * (null for a person who belongs to no issuer). Memberships come from the `bySub` index, which
 * may show one added a moment ago a little late; each issuer's own routes read the table itself.
 * Issuer names: one consistent BatchGetItem. The console calls it after every sign-in, so it is
 * also where the person's pending memberships become `active` (their invitations are accepted):
 * one conditional UpdateItem each, a no-op for those already active.
 */
export const makeMeHandler = (deps: MeRouteDeps) =>
  manageHandler('ManageMe', deps, async (request) => {
    queryOf(request.event, [])
    const { signal } = request.deadline
    const mine = await deps.memberships.listForPerson(request.sub, { signal })
    await deps.members.acceptInvitations(
      request.sub,
      mine.map((m) => m.issuerId),
      { signal },
    )
    const names = await deps.issuers.withSignal(signal).issuerNames(mine.map((m) => m.issuerId))
    const list = mine
      .map((m) => ({
        issuerId: m.issuerId,
        issuerName: names.get(m.issuerId) ?? null,
        role: m.role,
      }))
      .sort(
        (a, b) =>
          (a.issuerName ?? '').localeCompare(b.issuerName ?? '') ||
          a.issuerId.localeCompare(b.issuerId),
      )
    return manageJson(200, { email: mine[0]?.email ?? null, memberships: list })
  })
