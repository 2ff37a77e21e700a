// zod/mini, as the other schemas (the RequestLog writer's cold start stays short).
import * as z from 'zod/mini'
import { MODES } from './api-key'
import { IdempotencyKeySchema } from './grant-request.schema'
import { REQUEST_ID_PATTERN } from './request-id'
import type { RequestLogEntry } from './request-log'

/** Ids, route keys and codes as the integrator routes write them, bounded: an item stays < 1 KB. */
const token = (max: number) => z.string().check(z.minLength(1), z.maxLength(max))

/**
 * A request log entry as the RequestLog writer reads it from a log line (issue 33): every field
 * checked, nothing trusted. Unknown members are dropped (z.object strips them), so a line can add
 * nothing to the item but the entry's own fields: never `pk`, `sk` or `purgeAt`.
 */
export const RequestLogEntrySchema = z.object({
  requestId: z.string().check(z.regex(REQUEST_ID_PATTERN)),
  // ISO 8601 UTC with milliseconds, as `new Date().toISOString()` writes it.
  at: z.iso.datetime({ precision: 3 }),
  issuerId: token(64),
  mode: z.enum(MODES),
  keyId: token(64),
  method: z.string().check(z.regex(/^[A-Z]{3,7}$/)),
  // The route key template, e.g. `POST /programs/{programId}/grant-tokens`.
  route: z.string().check(z.maxLength(128), z.regex(/^[A-Z]{3,7} \/[\w/{}-]*$/)),
  programId: z.optional(token(64)),
  grantId: z.optional(token(64)),
  status: z.int().check(z.minimum(100), z.maximum(599)),
  code: z.optional(z.string().check(z.regex(/^[a-z][a-z0-9_]{0,63}$/))),
  latencyMs: z.number().check(z.minimum(0), z.maximum(3_600_000)),
  idempotencyKey: z.optional(IdempotencyKeySchema),
  replayed: z.boolean(),
})

// The schema's output is the entry: a field added to one and not the other fails the type check.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
export const SCHEMA_IS_THE_ENTRY: Same<
  z.output<typeof RequestLogEntrySchema>,
  RequestLogEntry
> = true

/** The entry in a value of unknown shape (a log line's `requestLog`), or undefined. */
export const parseRequestLogEntry = (value: unknown): RequestLogEntry | undefined => {
  const parsed = RequestLogEntrySchema.safeParse(value)
  return parsed.success ? parsed.data : undefined
}
