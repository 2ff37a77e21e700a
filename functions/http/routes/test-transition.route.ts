import {
  TEST_TRANSITION_BODY_MAX_BYTES,
  TestTransitionBody,
} from '../../domain/test-transition.schema'
import { toGrantDetail } from '../grant-life-resource'
import type { JsonEvent } from '../middleware'
import type { IntegratorLifeRouteDeps } from './integrator-life'
import { integratorRoute } from './integrator-route'

/**
 * `POST /programs/{programId}/grants/{grantId}/test-transition {to, reason?}` with a TEST key:
 * moves a TEST grant to `to` through the legal steps (actor `simulation` on its history), so an
 * integrator can test their handling of each state. A LIVE key: 409 test_mode_only.
 */
export const makeTestTransitionHandler = ({ life, requests }: IntegratorLifeRouteDeps) =>
  integratorRoute(
    (request, event: JsonEvent) =>
      life.testMove({ ...request, body: () => TestTransitionBody.parse(event.body) }),
    toGrantDetail,
    { jsonBodyMaxBytes: TEST_TRANSITION_BODY_MAX_BYTES, requests },
  )
