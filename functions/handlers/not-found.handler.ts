import { makeNotFoundHandler } from '../http/routes/not-found.route'

/** Lambda's entry: this route reads no configuration. */
export const handler = makeNotFoundHandler()
