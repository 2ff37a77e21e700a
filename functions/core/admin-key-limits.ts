import { NotFound, StateConflict } from '../domain/admin-errors'
import { one, rateLimitRule } from '../domain/admin-rules'
import { DEFAULT_RATE_LIMITS, MAX_RATE_LIMIT, rateLimitOf } from '../domain/rate-limit'
import { type AdminContext, type KeyView, orBusy, type Scope } from './admin-context'

/** A key's rate limit as a management use case (core/admin.ts makeAdmin). */
export const keyLimits = ({
  store,
  clock,
  who,
  audit,
  inScope,
  requireKey,
  keyView,
}: AdminContext) => {
  const notActive = (keyId: string, state: string) =>
    new StateConflict(
      'key',
      keyId,
      state,
      `Key ${keyId} is ${state}; only an active key's rate limit can be changed.`,
    )

  /** The rule for this actor: the operator any limit; a person one no higher than now. */
  const ruleFor = (fallback: number, limitNow: number) =>
    who.actor.kind === 'operator'
      ? rateLimitRule(MAX_RATE_LIMIT)
      : rateLimitRule(
          Math.max(fallback, limitNow),
          `only the operator raises a key above its mode's default (${fallback}) or its limit now (${limitNow})`,
        )

  return {
    /**
     * A key's rate limit in requests a second (domain/rate-limit.ts): a whole number, or null for
     * its mode's default. The operator sets any from 1 to MAX_RATE_LIMIT; an issuer's people only
     * lower it, up to the mode's default or the key's limit now, whichever is higher. Only an
     * active key's; the same limit again writes nothing. The grant API applies it within its
     * access cache's bound.
     */
    async setKeyRateLimit(keyId: string, limit: unknown, scope?: Scope): Promise<KeyView> {
      const key = await requireKey(keyId, scope)
      const state = keyView(key).state
      if (state !== 'active') throw notActive(keyId, state)
      const limitNow = rateLimitOf(key)
      const fallback = DEFAULT_RATE_LIMITS[key.mode]
      const to = limit === null ? undefined : one('rateLimit', limit, ruleFor(fallback, limitNow))
      if (to === key.rateLimit) return keyView(key)
      const outcome = await orBusy(`Setting the rate limit of key ${keyId}`, () =>
        store.setApiKeyRateLimit(
          {
            keyHash: key.keyHash,
            ...(key.rateLimit === undefined ? {} : { from: key.rateLimit }),
            ...(to === undefined ? {} : { to }),
            now: clock(),
          },
          {
            ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
            audit: audit(
              key.issuerId,
              'key.rate_limit',
              { type: 'key', id: keyId },
              {
                from: limitNow,
                to: to ?? fallback,
                fromDefault: key.rateLimit === undefined,
                toDefault: to === undefined,
              },
            ),
          },
        ),
      )
      if (outcome.kind === 'refused') {
        const current = outcome.current
        if (!current?.keyId || !inScope(current.issuerId, scope)) throw new NotFound('key', keyId)
        const after = keyView(current).state
        throw after === 'active'
          ? new StateConflict(
              'key',
              keyId,
              after,
              `Key ${keyId} changed while setting its rate limit; nothing was written.`,
            )
          : notActive(keyId, after)
      }
      const { rateLimit: _old, ...rest } = key
      return keyView(to === undefined ? rest : { ...rest, rateLimit: to })
    },
  }
}
