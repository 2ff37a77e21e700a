import type { MembershipRecord } from '../domain/people'
import type { CallOptions } from './grants.store'

/** The memberships every management request reads: the person's role in the path's issuer. */
export interface MembershipReader {
  /** The person's membership of one issuer, read strongly consistent. */
  get(issuerId: string, sub: string, options?: CallOptions): Promise<MembershipRecord | undefined>
  /** Every issuer the person belongs to (an index: eventually consistent). */
  listForPerson(
    sub: string,
    options?: CallOptions,
  ): Promise<Pick<MembershipRecord, 'issuerId' | 'sub' | 'role' | 'email'>[]>
}
