import { makeReplayWebhookMessageHandler } from '../../http/routes/manage/webhook-message-replay.route'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for ReplayWebhookMessage: the runtime and its queues' senders (functions/routes.ts `sends`) are
 * built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeReplayWebhookMessageHandler(
  sendingRuntime('ReplayWebhookMessage', process.env),
)
