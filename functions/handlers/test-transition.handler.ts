import { runtimeFrom } from '../composition'
import { makeTestTransitionHandler } from '../http/routes/test-transition.route'

/** Lambda's entry: the runtime is built once, at cold start, from the function's environment. */
export const handler = makeTestTransitionHandler(runtimeFrom(process.env))
