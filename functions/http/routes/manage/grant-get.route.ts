import type { Runtime } from '../../../composition'
import { DynamoDbGrantLifeStore } from '../../../stores/grant-life.dynamodb'
import { DynamoDbMembershipReader } from '../../../stores/memberships.dynamodb'
import { grantAnswer, grantIdOf, grantNotInIssuer } from '../../manage-grant-life'
import { manageHandler } from '../../manage-handler'

/**
 * `GET /manage/issuers/{issuerId}/grants/{grantId}` (viewer): one grant of the issuer, both
 * modes, with its state, the end of its offer window, its delivery and its timeline. Another
 * issuer's grant answers exactly like a missing one.
 */
export const makeManageGetGrantHandler = (runtime: Runtime) => {
  const { documentClient, config } = runtime
  const memberships = new DynamoDbMembershipReader(documentClient, config.tables)
  const store = new DynamoDbGrantLifeStore(documentClient, config.tables)
  return manageHandler(
    'ManageGetGrant',
    { memberships },
    async ({ event, deadline, membership }) => {
      const grantId = grantIdOf(event)
      const grant = await store.findGrant(grantId, { signal: deadline.signal })
      if (grant === undefined || grant.issuerId !== membership?.issuerId) {
        throw grantNotInIssuer(grantId)
      }
      return grantAnswer(grant)
    },
  )
}
