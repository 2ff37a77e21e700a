import type { GrantCursor, GrantRecord } from '../domain/grant'
import type { ProgramRecord, ProgramStatus, ProgramTerms } from '../domain/program'
import type { ChangeOptions, Creation, IssuerModeFilter, Page } from './changes.store'

/** How a conditional change of a program ended. `current` is the program as the write found it. */
export type ProgramChange =
  | { kind: 'changed' }
  | { kind: 'not_found' }
  | { kind: 'refused'; current: ProgramRecord }

/** Offer settings to set and remove, on the terms' version the change was decided on. */
export type OfferSettingsChange = {
  set: Partial<
    Pick<ProgramRecord, 'offerDays' | 'minAge' | 'countries' | 'description' | 'poolLowThreshold'>
  > & {
    terms?: ProgramTerms
  }
  remove: readonly ('minAge' | 'countries' | 'description' | 'poolLowThreshold')[]
  termsVersion: number | undefined
}

/** Programs as the admin side reads and changes them (the grant path has its own store). */
export interface ProgramStore {
  /** The head and its counter shards, with the issuer's existence checked in the same write. */
  createProgram(program: ProgramRecord, options?: ChangeOptions): Promise<Creation>
  /** Counters summed over the shards, strongly consistent. */
  getProgram(programId: string): Promise<ProgramRecord | undefined>
  /** Counters and status as the base table holds them now (strongly consistent). Oldest first. */
  listPrograms(filter: IssuerModeFilter): Promise<ProgramRecord[]>
  /** Moves the status only from one of `from` (and only within `options.issuerId`). */
  setProgramStatus(
    programId: string,
    to: ProgramStatus,
    from: ProgramStatus[],
    options?: ChangeOptions,
  ): Promise<ProgramChange>
  /**
   * Sets and removes offer settings, on condition that the terms' version is still `termsVersion`
   * (undefined: no terms yet), so two changes of the terms never make the same version twice
   * (and only within `options.issuerId`).
   */
  setOfferSettings(
    programId: string,
    input: OfferSettingsChange,
    options?: ChangeOptions,
  ): Promise<ProgramChange>
}

/** A program's grants, a page at a time, for the operator. */
export interface ProgramGrantPages {
  /** Newest first, from after `after` (a position decodeGrantCursor checked). */
  listGrants(input: {
    programId: string
    recipientEmail?: string
    limit: number
    after?: GrantCursor
  }): Promise<Page<GrantRecord>>
}
