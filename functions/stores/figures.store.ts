import type { FigureChange } from '../domain/figures'

/**
 * A program's figures (the figures table, functions/table-schema.ts `figures`), kept from the
 * grants table's stream by stores/figures.dynamodb.ts and read by the management routes: what is
 * shown costs reads in proportion to what is shown, never a scan of the program's grants.
 */

/** One holder of a program: the normalised address and its shares. */
export type HolderFigure = { email: string; accepted: number; pending: number }
export type HoldersPage = { items: HolderFigure[]; nextCursor?: string }
/** One UTC day of a program's grants; counts of grants, then shares. */
export type DailyFigure = {
  date: string // YYYY-MM-DD
  made: number
  offered: number
  accepted: number
  declined: number
  ineligibleAge: number
  ineligibleCountry: number
  expired: number
  canceled: number
  sharesIssued: number // amounts of grants made that day
  sharesAccepted: number // amounts accepted that day
  sharesReturned: number // amounts given back that day (rejected, expired, canceled)
}
export interface FiguresReader {
  /** Holders by accepted shares (desc, then email asc), `limit` 1..100; 'invalid_cursor' for a cursor this store did not make. */
  holdersPage(
    programId: string,
    page: { limit: number; cursor?: string },
  ): Promise<HoldersPage | 'invalid_cursor' | 'unavailable'>
  /** Days from..to inclusive that have any figure, ascending (days with nothing are absent). */
  dailyFigures(programId: string, from: string, to: string): Promise<DailyFigure[] | 'unavailable'>
}

/**
 * Keeps the figures from the grants stream (the GrantStream reader): a batch's changes
 * (core/grant-figures.ts figureChangeOf), each counted once however often its record is delivered.
 */
export interface FiguresWriter {
  /** The sequence numbers of the records whose figures could not be written: retry from them. */
  applyChanges(changes: readonly FigureChange[]): Promise<Set<string>>
}
