import { sleep as realSleep } from '../runtime/sleep'
import { issuerActions } from './grant-life/issuer-actions'
import type { GrantLifeDeps, LifeContext } from './grant-life/life-context'
import { recipientSteps } from './grant-life/recipient-steps'
import { serviceActions } from './grant-life/service-actions'

export type { RecipientBalance } from './grant-life/issuer-actions'
export {
  type GrantLifeDeps,
  RECIPIENT_LIMITS,
  RESEND_GAP_MS,
} from './grant-life/life-context'
export {
  type RecipientGrantView,
  type RecipientView,
  recipientGrantView,
} from './grant-life/recipient-view'

/**
 * A grant's life after it is made, for every door: the integrator API (cancel, the TEST-only
 * move, the balance), the management API and the CLI (cancel, resend, correct the address), the
 * recipient's page (view, identify, accept, decline, a new link), the mail worker (links,
 * delivery), the sweep (expire, remind). Each change is decided by grant-lifecycle.ts from the
 * grant as read and written on that state (stores/grant-life.store.ts): of racing changes exactly
 * one is written; the loser reads again and decides again (grant-life/transition.ts).
 */
export const makeGrantLife = ({
  store,
  clock,
  sleep = realSleep,
  random = Math.random,
}: GrantLifeDeps) => {
  const ctx: LifeContext = {
    store,
    clock,
    sleep,
    random,
    iso: () => new Date(clock()).toISOString(),
  }
  return { ...issuerActions(ctx), ...recipientSteps(ctx), ...serviceActions(ctx) }
}

export type GrantLife = ReturnType<typeof makeGrantLife>
