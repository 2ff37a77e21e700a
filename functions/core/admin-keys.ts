import { NotFound, StateConflict } from '../domain/admin-errors'
import { durationRule, fields, modeRule, one } from '../domain/admin-rules'
import { generateApiKey, hashApiKey, type Mode, maskApiKey } from '../domain/api-key'
import { newId } from '../domain/ids'
import { actorLabel } from '../domain/people'
import type { AdminKeyRecord } from '../stores/api-keys.store'
import { type AdminContext, checkId, type KeyView, orBusy, type Scope } from './admin-context'

/** The management use cases of API keys (core/admin.ts makeAdmin): create, list, revoke, roll. */
export const keyActions = ({
  store,
  clock,
  who,
  iso,
  audit,
  inScope,
  requireKey,
  keyView,
}: AdminContext) => {
  const newKey = (issuerId: string, mode: Mode, expiresAt?: number) => {
    const secret = generateApiKey(mode)
    const record: AdminKeyRecord = {
      keyHash: hashApiKey(secret),
      keyId: newId('apiKey'),
      issuerId,
      mode,
      status: 'active',
      createdAt: iso(),
      createdBy: actorLabel(who.actor),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...maskApiKey(secret),
    }
    return { secret, record }
  }

  return {
    async createKey(input: {
      issuer?: string
      mode?: unknown
      /** `90d`, `24h`, ...; absent or null: the key does not expire. */
      expiresIn?: unknown
    }) {
      const issuerId = checkId('issuer', input.issuer)
      const check = fields()
      const mode = check.check('mode', input.mode, modeRule)
      const ttl =
        input.expiresIn === undefined || input.expiresIn === null
          ? undefined
          : check.check('expiresIn', input.expiresIn, durationRule({ zero: false }))
      check.done()
      const key = newKey(issuerId, mode, ttl === undefined ? undefined : clock() + ttl)
      const outcome = await orBusy('Creating the key', () =>
        store.createApiKey(key.record, {
          audit: audit(
            issuerId,
            'key.create',
            { type: 'key', id: key.record.keyId },
            {
              mode,
              expiresAt:
                key.record.expiresAt === undefined
                  ? null
                  : new Date(key.record.expiresAt).toISOString(),
            },
          ),
        }),
      )
      if (outcome === 'issuer_not_found') throw new NotFound('issuer', issuerId)
      return key
    },

    listKeys: async (filter: { issuer?: string; mode?: unknown }) =>
      (
        await store.listApiKeys({
          ...(filter.issuer === undefined ? {} : { issuerId: checkId('issuer', filter.issuer) }),
          ...(filter.mode === undefined ? {} : { mode: one('mode', filter.mode, modeRule) }),
        })
      ).map(keyView),

    /** Takes effect on the grant API's very next request. Revoking a revoked key changes nothing. */
    async revokeKey(keyId: string, scope?: Scope): Promise<KeyView> {
      const key = await requireKey(keyId, scope)
      const outcome = await orBusy(`Revoking key ${keyId}`, () =>
        store.revokeApiKey(key.keyHash, {
          ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
          audit: audit(key.issuerId, 'key.revoke', { type: 'key', id: keyId }),
        }),
      )
      if (outcome.kind === 'not_found') throw new NotFound('key', keyId)
      return keyView({ ...key, status: 'revoked' })
    },

    /**
     * Like Stripe's roll: a new key now; the old one keeps working for the grace period, then
     * stops (never later than it would have anyway). The new key keeps the old one's expiry.
     */
    async rollKey(keyId: string, grace: unknown = '24h', scope?: Scope) {
      const graceMs = one('grace', grace ?? '24h', durationRule({ zero: true }))
      const old = await requireKey(keyId, scope)
      const refused = (state: string) =>
        new StateConflict(
          'key',
          keyId,
          state,
          `Key ${keyId} is ${state}; only an active key can be rolled.`,
        )
      if (keyView(old).state !== 'active') throw refused(keyView(old).state)
      const now = clock()
      const oldExpiresAt = Math.min(old.expiresAt ?? Number.POSITIVE_INFINITY, now + graceMs)
      const next = newKey(old.issuerId, old.mode, old.expiresAt)
      const outcome = await orBusy(`Rolling key ${keyId}`, () =>
        store.rollApiKey(
          { old, next: next.record, oldExpiresAt, now },
          {
            ...(scope?.issuerId === undefined ? {} : { issuerId: scope.issuerId }),
            audit: audit(
              old.issuerId,
              'key.roll',
              { type: 'key', id: keyId },
              { newKeyId: next.record.keyId, oldExpiresAt: new Date(oldExpiresAt).toISOString() },
            ),
          },
        ),
      )
      if (outcome.kind === 'refused') {
        const current = outcome.current
        if (!current || !inScope(current.issuerId, scope)) throw new NotFound('key', keyId)
        const state = keyView(current).state
        throw state === 'active'
          ? new StateConflict('key', keyId, state, `Key ${keyId} changed while rolling it.`)
          : refused(state)
      }
      return {
        ...next,
        old: keyView({ ...old, expiresAt: oldExpiresAt, rolledTo: next.record.keyId }),
      }
    },
  }
}
