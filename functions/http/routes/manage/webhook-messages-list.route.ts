import { manageJson } from '../../manage-http'
import { type WebhookRouteDeps, webhookRoute } from '../../webhook-routes'
import { toMessageView } from '../../webhook-view'

/**
 * `GET /manage/issuers/{issuerId}/webhook-endpoints/{endpointId}/messages` (viewer)
 * `?limit&cursor`: the delivery log, newest first, each message with every attempt (time, status,
 * latency, the start of the response). `next`: the cursor of the next page, absent on the last.
 * The query is read by the one paging parser (domain/page-query.ts) in the use case.
 */
export const makeListWebhookMessagesHandler = (deps: WebhookRouteDeps) =>
  webhookRoute(deps, 'ListWebhookMessages', async ({ request, endpoints, caller, path }) => {
    const query = request.event.queryStringParameters
    const page = await endpoints.messages(caller, path.endpointId, query)
    return manageJson(200, {
      messages: page.messages.map(toMessageView),
      ...(page.next === undefined ? {} : { next: page.next }),
    })
  })
