import type { AuditEntry } from '../domain/people'
import type { CallOptions } from './members.store'

/**
 * An audit entry written on its own, for an action that changes no item to write it beside (a
 * webhook test send, a replay). A change writes its entry in its own transaction instead.
 */
export interface AuditWriter {
  /** Appends `entry`; the log is append-only, so an id that exists already is refused. */
  append(entry: AuditEntry, options?: CallOptions): Promise<void>
}
