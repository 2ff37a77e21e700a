import type { AuditEntry } from '../domain/people'
import type { ProgramRecord } from '../domain/program'
import type { ProgramValueEntry, ProgramValueOutboxItem } from '../domain/program-value'

/**
 * A program's value history and its current value on the head (issue 32): the management routes'
 * store. Refusals are outcomes; a store that cannot answer throws StoreUnavailable.
 */

/** The program head as a value change decides on it (no counters: it needs none). */
export type ValueHead = Pick<ProgramRecord, 'programId' | 'issuerId' | 'mode' | 'value'>

/**
 * How recording an entry ended:
 * - `done`: the entry, its audit entry and its outbox item written; `current` says whether the
 *   head took it as the program's value;
 * - `not_found`: no such program, or another issuer's;
 * - `stale`: the head was to take it, but holds a newer value now (another change won): decide
 *   again on `head`.
 */
export type RecordValueOutcome =
  | { kind: 'done'; current: boolean }
  | { kind: 'not_found' }
  | { kind: 'stale'; head: ValueHead }

export type ValuePage = { items: ProgramValueEntry[]; last?: ProgramValueEntry }

export interface ProgramValueStore {
  /** The head, strongly consistent; undefined when there is no such program. */
  getHead(programId: string): Promise<ValueHead | undefined>
  /**
   * In one transaction: the history entry, the audit entry, the outbox item of the webhook event
   * and, with `current`, the head's value (on condition that the head holds no newer one); without
   * it, a check that the program still is the issuer's.
   */
  recordValue(input: {
    head: ValueHead
    entry: ProgramValueEntry
    current: boolean
    issuerId: string
    audit: AuditEntry
    outbox: ProgramValueOutboxItem
  }): Promise<RecordValueOutcome>
  /** Newest first (latest `asOf`, then the latest set), from after the entry `after` names. */
  listValues(input: {
    programId: string
    limit: number
    after?: { asOf: string; setAt: string; valueId: string }
  }): Promise<ValuePage>
}
