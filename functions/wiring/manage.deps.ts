import type { Runtime } from '../composition'
import type { ManageDeps } from '../http/manage-handler'
import { DynamoDbMembershipReader } from '../stores/memberships.dynamodb'

/** What every management route is built over: the membership reader of its role check. */
export const manageDeps = (runtime: Runtime): ManageDeps => ({
  memberships: new DynamoDbMembershipReader(runtime.documentClient, runtime.config.tables),
})
