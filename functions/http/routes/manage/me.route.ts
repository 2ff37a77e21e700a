import type { Runtime } from '../../../composition'
import { DynamoDbAdminStore } from '../../../stores/admin.dynamodb'
import { DynamoDbMembersStore } from '../../../stores/members.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { MANAGE_STORE_OPTIONS, manageJson, queryOf } from '../../manage-admin'
import { manageHandler } from '../../manage-handler'

/**
 * `GET /manage/me`: who the signed-in person is here, `{ email, memberships: [{ issuerId,
 * issuerName, role }] }`. Access tokens carry no e-mail, so it comes from a membership record
 * (null for a person who belongs to no issuer). Memberships come from the `bySub` index, which
 * may show one added a moment ago a little late; each issuer's own routes read the table itself.
 * Issuer names: one consistent BatchGetItem. The console calls it after every sign-in, so it is
 * also where the person's pending memberships become `active` (their invitations are accepted):
 * one conditional UpdateItem each, a no-op for those already active.
 */
export const makeMeHandler = (runtime: Runtime) => {
  const client = runtime.documentClient
  const { tables } = runtime.config
  const memberships = new DynamoDbMembershipReader(client, tables)
  const store = new DynamoDbAdminStore(client, tables, MANAGE_STORE_OPTIONS)
  const members = new DynamoDbMembersStore(client, tables)
  return manageHandler('ManageMe', { memberships }, async (request) => {
    queryOf(request.event, [])
    const { signal } = request.deadline
    const mine = await memberships.listForPerson(request.sub, { signal })
    await members.acceptInvitations(
      request.sub,
      mine.map((m) => m.issuerId),
      { signal },
    )
    const names = await store.withSignal(signal).issuerNames(mine.map((m) => m.issuerId))
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
}
