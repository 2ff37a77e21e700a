import type { Runtime } from '../composition'
import { makeGrantLife } from '../core/grant-life'
import type { GrantLifeRouteDeps } from '../http/manage-grant-life'
import type { ManageGetGrantDeps } from '../http/routes/manage/grant-get.route'
import type { ManageListGrantsDeps } from '../http/routes/manage/grants-list.route'
import type { SendGrantDeps } from '../http/routes/manage/grants-send.route'
import { DynamoDbGrantLifeStore } from '../stores/grant-life.dynamodb'
import { DynamoDbGrantReads } from '../stores/grants.reads.dynamodb'
import { grantTokensDeps } from './grant-tokens.deps'
import { manageDeps } from './manage.deps'

/** The management routes over one grant and a program's grants, each over the runtime's client. */

/** ManageGetGrant: the grant's life store, read only. */
export const manageGetGrantDeps = (runtime: Runtime): ManageGetGrantDeps => ({
  ...manageDeps(runtime),
  grants: new DynamoDbGrantLifeStore(runtime.documentClient, runtime.config.tables),
})

/** ManageCancelGrant, ManageResendOffer, ManageCorrectEmail: the grant's life. */
export const grantLifeRouteDeps = (runtime: Runtime): GrantLifeRouteDeps => ({
  ...manageDeps(runtime),
  life: makeGrantLife({
    store: new DynamoDbGrantLifeStore(runtime.documentClient, runtime.config.tables),
    clock: () => runtime.clock.now(),
  }),
})

/** ListGrants: the program and its grants, by the listing's index. */
export const manageListGrantsDeps = (runtime: Runtime): ManageListGrantsDeps => {
  const { documentClient, config } = runtime
  return {
    ...manageDeps(runtime),
    grants: new DynamoDbGrantReads(documentClient, config.tables, config.grantListIndex),
  }
}

/** SendGrant: the grant API's own use case, as the grant route builds it. */
export const sendGrantDeps = (runtime: Runtime): SendGrantDeps => ({
  ...manageDeps(runtime),
  ...grantTokensDeps(runtime),
})
