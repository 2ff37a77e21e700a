import { SQSClient } from '@aws-sdk/client-sqs'
import { type Runtime, runtimeFrom } from '../composition'
import { QUEUES, type QueueId } from '../consumers'
import { type RouteId, routeById } from '../routes'
import { type QueueSender, sqsQueueSender } from '../runtime/queue-sender'

/**
 * Lambda's runtime for a route that sends to queues (its `sends` in functions/routes.ts, which the
 * stack also reads to grant sqs:SendMessage and set each queue's URL variable): the runtime, one
 * SQS client and each queue's sender, built once at cold start. A missing URL stops the function at
 * init rather than failing its first request after that request has written.
 */
export const sendingRuntime = (routeId: RouteId, env: NodeJS.ProcessEnv): Runtime => {
  const runtime = runtimeFrom(env)
  const sqs = new SQSClient({ region: runtime.config.awsRegion })
  const queues: Partial<Record<QueueId, QueueSender>> = {}
  for (const id of routeById(routeId).sends ?? []) {
    const spec = QUEUES.find((queue) => queue.id === id)
    if (spec === undefined) throw new Error(`No queue ${id} in functions/consumers.ts`)
    const url = env[spec.urlVariable]
    if (url === undefined || url === '') {
      throw new Error(`Missing required environment variable ${spec.urlVariable}.`)
    }
    queues[id] = sqsQueueSender(sqs, url)
  }
  return { ...runtime, queues }
}
