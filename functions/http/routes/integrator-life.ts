import type { makeIntegratorGrantLife } from '../../core/integrator-grant-life'
import type { IntegratorRequests } from './integrator-route'

/**
 * What the integrator's grant-life routes (cancel, test-transition, balance) need: the grant's
 * life behind the key and program check of the reads, built by the composition root.
 */
export type IntegratorLifeRouteDeps = {
  readonly life: ReturnType<typeof makeIntegratorGrantLife>
} & IntegratorRequests
