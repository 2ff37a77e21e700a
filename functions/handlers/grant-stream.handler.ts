import { makeGrantStreamHandler } from '../wiring/grant-stream.consumer'
import { consumerRuntime } from '../wiring/queue-runtime'

/**
 * Lambda's entry for GrantStream (functions/consumers.ts): the runtime and the senders of the
 * queues it feeds (OfferMail, Webhooks) are built once, at cold start.
 */
export const handler = makeGrantStreamHandler(consumerRuntime('GrantStream', process.env))
