import type { Runtime } from '../../../composition'
import { manageJson, queryOf } from '../../manage-http'
import { pathOf, webhookRoute } from '../../webhook-routes'
import { toMessageView } from '../../webhook-view'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages` (viewer)
 * `?limit&cursor`: the delivery log, newest first, each message with every attempt (time, status,
 * latency, the start of the response). `next`: the cursor of the next page, absent on the last.
 */
export const makeListWebhookMessagesHandler = (runtime: Runtime) =>
  webhookRoute(runtime, 'ListWebhookMessages', async (request, endpoints, caller) => {
    const query = queryOf(request.event, ['limit', 'cursor'])
    const page = await endpoints.messages(caller, pathOf(request.event).endpointId, query)
    return manageJson(200, {
      messages: page.messages.map(toMessageView),
      ...(page.next === undefined ? {} : { next: page.next }),
    })
  })
