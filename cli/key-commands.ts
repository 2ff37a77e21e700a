import type { Admin, KeyView } from '../functions/core/admin'
import { InvalidInput } from '../functions/domain/admin-errors'
import { MAX_RATE_LIMIT, rateLimitOf } from '../functions/domain/rate-limit'
import type { Command as BaseCommand, Values } from './command'
import { table, when } from './format'
import type { GrantTools } from './grant-commands'
import { CliError } from './messages'

/**
 * The admin CLI's `key` commands (admin-cli.ts registers them): create, list, revoke, roll, and
 * the operator's door to a key's rate limit, over the admin use cases (functions/core/admin.ts).
 */
type Command = BaseCommand<Admin, GrantTools>

const str = (values: Values, key: string) => values[key] as string | undefined

/** A key's limit as the listing shows it: `25 (default)`, or the key's own `500`. */
const limitText = (k: KeyView) =>
  `${rateLimitOf(k)}${k.rateLimit === undefined ? ' (default)' : ''}`

const keyRow = (k: KeyView) => [
  k.keyId,
  k.issuerId,
  k.mode,
  `${k.prefix}…${k.last4}`,
  k.state,
  k.createdAt,
  when(k.expiresAt),
  limitText(k),
]
const publicKey = (k: KeyView) => ({
  keyId: k.keyId,
  issuerId: k.issuerId,
  mode: k.mode,
  prefix: k.prefix,
  last4: k.last4,
  status: k.state,
  createdAt: k.createdAt,
  expiresAt: k.expiresAt === undefined ? null : when(k.expiresAt),
  rateLimit: rateLimitOf(k),
  rateLimitIsDefault: k.rateLimit === undefined,
})
const SECRET_WARNING =
  'This secret is shown once and cannot be shown again: only its SHA-256 hash is stored. Put it in your secret manager now.'
/** A new key's --json: the key, its secret this once, the warning. */
const newKeyJson = (record: KeyView, secret: string, more: object = {}) =>
  JSON.stringify({ ...publicKey(record), secret, warning: SECRET_WARNING, ...more })

export const KEY_COMMANDS: Record<string, Command> = {
  'key create': {
    usage: 'key create --issuer <issuerId> --mode TEST|LIVE [--expires-in 90d]',
    summary: 'Create an API key. The secret is printed once; only its hash is stored.',
    options: ['issuer', 'mode', 'expires-in'],
    run: async (admin, { values, json }, io) => {
      const { secret, record } = await admin.createKey({
        issuer: str(values, 'issuer'),
        mode: str(values, 'mode'),
        expiresIn: str(values, 'expires-in'),
      })
      if (json) {
        io.out(newKeyJson({ ...record, state: 'active' }, secret))
        return
      }
      io.err(`WARNING: ${SECRET_WARNING}`)
      io.out(
        [
          `Created ${record.mode} key ${record.keyId} for ${record.issuerId} (expires ${when(record.expiresAt)})`,
          secret,
        ].join('\n'),
      )
    },
  },
  'key list': {
    usage: 'key list [--issuer <issuerId>]',
    summary:
      'List keys: id, mode, prefix and last 4 characters, status, dates, rate limit. Never the secret.',
    options: ['issuer'],
    run: async (admin, { values, json }, io) => {
      const keys = await admin.listKeys({ issuer: str(values, 'issuer') })
      io.out(
        json
          ? JSON.stringify(keys.map(publicKey))
          : table(
              ['ID', 'ISSUER', 'MODE', 'KEY', 'STATUS', 'CREATED', 'EXPIRES', 'LIMIT/S'],
              keys.map(keyRow),
            ),
      )
    },
  },
  'key revoke': {
    usage: 'key revoke <keyId>',
    summary: 'Revoke a key; the very next request with it is refused.',
    options: [],
    positional: 'keyId',
    run: async (admin, { id, json }, io) => {
      const key = await admin.revokeKey(id)
      io.out(
        json ? JSON.stringify(publicKey(key)) : `Revoked ${key.keyId} (${key.prefix}…${key.last4})`,
      )
    },
  },
  'key roll': {
    usage: 'key roll <keyId> [--grace 24h]',
    summary:
      'Replace a key: a new secret now; the old one keeps working for the grace period (0 for none).',
    options: ['grace'],
    positional: 'keyId',
    run: async (admin, { id, values, json }, io) => {
      const { secret, record, old } = await admin.rollKey(id, str(values, 'grace'))
      if (json) {
        io.out(newKeyJson({ ...record, state: 'active' }, secret, { old: publicKey(old) }))
        return
      }
      io.err(`WARNING: ${SECRET_WARNING}`)
      io.out(
        [
          `Rolled ${old.keyId}: it keeps working until ${when(old.expiresAt)}.`,
          `New ${record.mode} key ${record.keyId}:`,
          secret,
        ].join('\n'),
      )
    },
  },
  'key limit': {
    usage: 'key limit <keyId> <n|default>',
    summary: `Set a key's rate limit: requests a second, 1 to ${MAX_RATE_LIMIT}, or default (its mode's). Issuers' people can only lower it; the stage's own throttle (lib/stage-config.ts) still caps the grant route for all keys.`,
    options: [],
    positional: 'keyId',
    value: 'n|default',
    run: async (admin, { id, value, json }, io) => {
      const asked = value === 'default' ? null : value
      let key: KeyView
      try {
        key = await admin.setKeyRateLimit(id, asked)
      } catch (error) {
        if (!(error instanceof InvalidInput)) throw error
        throw new CliError(
          `The limit must be a whole number from 1 to ${MAX_RATE_LIMIT}, or default, got ${JSON.stringify(value ?? '')}.`,
        )
      }
      io.out(
        json
          ? JSON.stringify(publicKey(key))
          : `Key ${key.keyId} (${key.prefix}…${key.last4}) now allows ${limitText(key)} requests a second.`,
      )
    },
  },
}
