import { makeGrantFiguresHandler } from '../wiring/grant-figures.consumer'
import { consumerRuntime } from '../wiring/queue-runtime'

/**
 * Lambda's entry for GrantFigures (functions/consumers.ts): the runtime and the figures store are
 * built once, at cold start.
 */
export const handler = makeGrantFiguresHandler(consumerRuntime('GrantFigures', process.env))
