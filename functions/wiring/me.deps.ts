import type { Runtime } from '../composition'
import type { MeRouteDeps } from '../http/routes/manage/me.route'
import { DynamoDbAdminStore, REQUEST_CONFLICT_RETRY } from '../stores/admin.dynamodb'
import { DynamoDbMembersStore } from '../stores/members.dynamodb'
import { manageDeps } from './manage.deps'

/** `GET /manage/me`'s deps: the memberships, the accepting of invitations, the issuers' names. */
export const meDeps = (runtime: Runtime): MeRouteDeps => {
  const { documentClient, config } = runtime
  return {
    ...manageDeps(runtime),
    members: new DynamoDbMembersStore(documentClient, config.tables),
    issuers: new DynamoDbAdminStore(documentClient, config.tables, {
      conflictRetry: REQUEST_CONFLICT_RETRY,
    }),
  }
}
