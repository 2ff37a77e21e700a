import { type Runtime, runtimeFrom } from '../composition'
import { type ConsumerId, consumerById, QUEUES, type QueueId } from '../consumers'
import { sqsQueueSenders } from '../runtime/queue-sender'

type Env = Readonly<Record<string, string | undefined>>

/**
 * Lambda's runtime for an entry that sends to queues (a route's or a consumer's `sends`, which the
 * stack also reads to grant sqs:SendMessage and set each queue's URL variable): the runtime and
 * each queue's SQS sender, built once at cold start; a missing URL stops the function at init.
 */
export const runtimeSendingTo = (queueIds: readonly string[], env: Env): Runtime => {
  const runtime = runtimeFrom(env)
  const specs = queueIds.map((id) => {
    const spec = QUEUES.find((queue) => queue.id === id)
    if (spec === undefined) throw new Error(`No queue ${id} in functions/consumers.ts`)
    return { id: spec.id as QueueId, urlVariable: spec.urlVariable }
  })
  return { ...runtime, queues: sqsQueueSenders(specs, env, runtime.config.awsRegion) }
}

/** A consumer's runtime (functions/consumers.ts), with the senders of the queues it `sends` to. */
export const consumerRuntime = (id: ConsumerId, env: Env): Runtime =>
  runtimeSendingTo(consumerById(id).sends ?? [], env)
