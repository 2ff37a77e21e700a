import type { Runtime } from '../composition'
import { type RouteId, routeById } from '../routes'
import { runtimeSendingTo } from '../wiring/queue-runtime'

/**
 * Lambda's runtime for a route that sends to queues (its `sends` in functions/routes.ts): the
 * runtime and each queue's SQS sender, built once at cold start (wiring/queue-runtime.ts).
 */
export const sendingRuntime = (routeId: RouteId, env: NodeJS.ProcessEnv): Runtime =>
  runtimeSendingTo(routeById(routeId).sends ?? [], env)
