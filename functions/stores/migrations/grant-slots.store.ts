/**
 * What `grant backfill-slots` did: items the scan read, grants given their `programSlot`, and
 * grants found without one that had one (or were gone) by the time of the write.
 */
export type SlotBackfill = { scanned: number; updated: number; alreadySet: number }

/** The upgrade step between the two deploys that brought `byProgramSlot` (docs/deploying.md). */
export interface GrantSlotBackfill {
  /**
   * Gives every grant without `programSlot` (written before `byProgramSlot` existed) its slot.
   * Idempotent.
   */
  backfillGrantSlots(): Promise<SlotBackfill>
}
