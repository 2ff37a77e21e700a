import type { Runtime } from '../../composition'
import {
  TEST_TRANSITION_BODY_MAX_BYTES,
  TestTransitionBody,
} from '../../domain/test-transition.schema'
import { toGrantDetail } from '../grant-life-resource'
import { httpHandler, json } from '../http-handler'
import type { JsonEvent } from '../middleware'
import { integratorLife } from './integrator-life'

/**
 * `POST /programs/{programId}/grants/{grantId}/test-transition {to, reason?}` with a TEST key:
 * moves a TEST grant to `to` through the legal steps (actor `simulation` on its history), so an
 * integrator can test their handling of each state. A LIVE key: 409 test_mode_only.
 */
export const makeTestTransitionHandler = (runtime: Runtime) => {
  const life = integratorLife(runtime)
  return httpHandler<JsonEvent>(
    async (event, deadline) =>
      json(
        200,
        toGrantDetail(
          await life.testMove({
            apiKey: event.headers['x-api-key'],
            programId: event.pathParameters?.programId,
            grantId: event.pathParameters?.grantId,
            body: () => TestTransitionBody.parse(event.body),
            deadline,
          }),
        ),
      ),
    { jsonBodyMaxBytes: TEST_TRANSITION_BODY_MAX_BYTES },
  )
}
