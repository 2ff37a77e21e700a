import type { AuditEntry } from '../domain/people'

/** Reads of the audit log (its entries are written by each change, in the change's transaction). */
export interface AuditLog {
  /** The issuer's log, newest first, from after the entry `after` (exclusive). */
  listAudit(input: {
    issuerId: string
    limit: number
    after?: string
  }): Promise<{ items: AuditEntry[]; last?: string }>
}
