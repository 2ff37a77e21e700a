import { makeReplayWebhookMessagesHandler } from '../../http/routes/manage/webhook-messages-replay.route'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for ReplayWebhookMessages: the runtime and its queues' senders (functions/routes.ts `sends`) are
 * built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeReplayWebhookMessagesHandler(
  sendingRuntime('ReplayWebhookMessages', process.env),
)
