import type { RequestLogEntry } from '../domain/request-log'
import { absentAsNull } from './absent-as-null'

/**
 * A request of the log as the management API shows it (`object: 'request'`): every field of the
 * entry, an absent one as null. An entry holds no key, body or address, so none can be shown.
 */
export const toRequestView = (entry: RequestLogEntry) => ({
  object: 'request' as const,
  id: entry.requestId,
  requestId: entry.requestId,
  at: entry.at,
  mode: entry.mode,
  keyId: entry.keyId,
  method: entry.method,
  route: entry.route,
  status: entry.status,
  latencyMs: entry.latencyMs,
  replayed: entry.replayed,
  ...absentAsNull(entry, ['programId', 'grantId', 'code', 'idempotencyKey']),
})
