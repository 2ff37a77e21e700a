import { makeSendTestWebhookHandler } from '../../http/routes/manage/webhook-test-send.route'
import { sendingRuntime } from '../sending-runtime'

/**
 * Lambda's entry for SendTestWebhook: the runtime and its queues' senders (functions/routes.ts `sends`) are
 * built once, at cold start; a missing queue URL stops it at init.
 */
export const handler = makeSendTestWebhookHandler(sendingRuntime('SendTestWebhook', process.env))
