import type { Mode } from './api-key'

/** How long the request log keeps a request (issue 33), by the table's TTL (`purgeAt`). */
export const REQUEST_LOG_DAYS = 30

/**
 * Partitions per issuer and mode of the request log (table-schema.ts `requests`): a busy issuer's
 * log writes spread over this many, each far under a partition's 1,000 writes a second.
 */
export const REQUEST_LOG_SLOTS = 4

/**
 * One integrator API request as the log keeps it: who (the key's id, never the key), what (the
 * route's template, never the path: a recipient's address can be a path segment) and how it ended.
 * No body, no header but the Idempotency-Key, nothing secret, no personal data.
 */
export type RequestLogEntry = {
  /** functions/domain/request-id.ts; also the answer's `Request-Id` and a problem's `requestId`. */
  requestId: string
  /** When the request arrived, ISO 8601 UTC with milliseconds (the id's time). */
  at: string
  issuerId: string
  mode: Mode
  keyId: string
  method: string
  /** The route key, e.g. `POST /programs/{programId}/grant-tokens`. */
  route: string
  /** The path's program and grant ids where it has them (ids, not personal data). */
  programId?: string
  /** The grant the request named in its path, or made (a grant's `requestId` links back). */
  grantId?: string
  status: number
  /** The problem's `code` when the answer was one. */
  code?: string
  latencyMs: number
  idempotencyKey?: string
  /** A replay of an earlier grant (`Idempotent-Replayed: true`). */
  replayed: boolean
}

/** The request log's partition of an entry: `requests#<issuerId>#<mode>#<slot>`. */
export const requestLogSlot = (requestId: string): number => {
  let hash = 0
  for (let i = 0; i < requestId.length; i++) hash = (hash * 31 + requestId.charCodeAt(i)) >>> 0
  return hash % REQUEST_LOG_SLOTS
}

export const requestLogPartition = (issuerId: string, mode: Mode, requestId: string): string =>
  requestLogSlotPartition(issuerId, mode, requestLogSlot(requestId))

/** One of the REQUEST_LOG_SLOTS partitions of an issuer's mode (the reads Query each). */
export const requestLogSlotPartition = (issuerId: string, mode: Mode, slot: number): string =>
  `requests#${issuerId}#${mode}#${slot}`
