import type { Mode } from './api-key'
import type { ProgramValueHead } from './program-value'

/**
 * A program and the rules on it that every door uses (the grant API, its reads, the management
 * routes, send to many, the CLI): who may see it, whether it takes grants, and how its status
 * moves. Pure: no SDK, no HTTP.
 */

export type ProgramStatus = 'active' | 'paused' | 'closed'

/** The largest pool a program may have (shares), and the longest name (characters, trimmed). */
export const MAX_POOL = 1_000_000_000_000
export const MAX_NAME_LENGTH = 100

/**
 * Item of the programs table (the program's "head"). With `shards` set, the counters live in
 * shard items (program-shards.ts) and `issued` here is only a base; every read that shows a
 * program sums them (`issued`, `remaining` of a read are the totals). Without it (a program made
 * before shards existed) this item is the program's one counter.
 */
export type ProgramRecord = {
  programId: string
  issuerId: string
  mode: Mode
  name: string
  status: ProgramStatus
  pool?: number
  issued: number
  remaining?: number
  /** How many counter shards hold the pool; absent: the head is the one counter. */
  shards?: number
  createdAt: string
  /** Shown to recipients on their page and in the offer e-mail. */
  description?: string
  /** Days an offer stays open (default DEFAULT_OFFER_DAYS); read by the grant path from the head. */
  offerDays?: number
  /** Eligibility: the youngest age that may accept (absent: no age rule, no date of birth asked). */
  minAge?: number
  /** Eligibility: the ISO 3166-1 alpha-2 countries recipients may live in (absent: any). */
  countries?: string[]
  /** The Terms of Virtual Shares recipients accept: text or a link, versioned (1, 2, ...). */
  terms?: ProgramTerms
  /**
   * `program.pool_low` fires once each time what is left of the pool falls to this many shares or
   * fewer (issue 21; the webhook sender decides it). Absent: no such event.
   */
  poolLowThreshold?: number
  /**
   * The value of a share now: the entry of its value history with the latest `asOf` (issue 32,
   * domain/program-value.ts). Absent: no value set.
   */
  value?: ProgramValueHead
}

/**
 * On the head: `{ version, url }` or `{ version, hasText: true }` (the text, up to 20,000
 * characters, is kept in its own item, `termsKey`, so the head the grant path reads stays small);
 * heads written before that may still hold `text`. Read through the stores: `{ version, text | url }`.
 */
export type ProgramTerms = { version: number; text?: string; url?: string; hasText?: true }

/**
 * Whether an issuer's record (a program, a grant, a batch) is one `issuerId` may see. Another
 * issuer's is answered exactly as a missing one, everywhere, so ids of other tenants cannot be
 * probed.
 */
export const ownedBy = <R extends { issuerId: string }>(
  record: R | undefined,
  issuerId: string,
): record is R => record !== undefined && record.issuerId === issuerId

/** Only an active program takes grants; paused and closed ones refuse them. */
export const isProgramOpen = (program: Pick<ProgramRecord, 'status'>) => program.status === 'active'

/** Why a program refuses a grant (or a read) on behalf of an issuer and mode. */
export type ProgramRefusal =
  | { kind: 'not_found' }
  | { kind: 'mode_mismatch'; programMode: Mode; callerMode: Mode }
  | { kind: 'inactive'; status: ProgramStatus }

/**
 * What a program refuses to a caller of `issuerId` and `mode`, in the order the API answers:
 * missing (or another issuer's), then the other mode, then, for a grant, not open.
 */
export const programRefusal = (
  program: Pick<ProgramRecord, 'issuerId' | 'mode' | 'status'> | undefined,
  caller: { issuerId: string; mode: Mode },
  purpose: 'grant' | 'read',
): ProgramRefusal | undefined => {
  if (!ownedBy(program, caller.issuerId)) return { kind: 'not_found' }
  if (program.mode !== caller.mode) {
    return { kind: 'mode_mismatch', programMode: program.mode, callerMode: caller.mode }
  }
  if (purpose === 'grant' && !isProgramOpen(program))
    return { kind: 'inactive', status: program.status }
  return undefined
}

export type ProgramAction = 'pause' | 'resume' | 'close'

/** How a program's status moves: each action's target, and the statuses it may start from. */
export const PROGRAM_TRANSITIONS: Record<
  ProgramAction,
  { to: ProgramStatus; from: ProgramStatus[] }
> = {
  pause: { to: 'paused', from: ['active'] },
  resume: { to: 'active', from: ['paused'] },
  close: { to: 'closed', from: ['active', 'paused'] },
}
