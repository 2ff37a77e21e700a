import { makeReplayWebhookMessageHandler } from '../../http/routes/manage/webhook-message-replay.route'
import { webhooksDeps } from '../../wiring/webhooks.deps'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for ReplayWebhookMessage: the runtime, its queues' senders (functions/routes.ts `sends`) and the
 * route's use cases are built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeReplayWebhookMessageHandler(
  webhooksDeps(sendingRuntime('ReplayWebhookMessage', process.env)),
)
