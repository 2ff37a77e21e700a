/**
 * Where a grant sits in the grants table's listing index `byProgramSlot`: one of a few slots of its
 * program, pure data (no SDK). Why slots: docs/decisions/listing-slots.md.
 */

import { createHash } from 'node:crypto'

/** Slots per program. Changing it moves grants between slots: only with a new backfill. */
export const GRANT_LIST_SLOTS = 8

/**
 * The slot of a grant: `<programId>#<n>`, n = the first 4 bytes of SHA-256 of the grant id (big
 * endian) mod GRANT_LIST_SLOTS. A pure function of the grant id, so the write path and the backfill
 * of older grants (`grant backfill-slots`) always agree; a grant id is random (or a hash of the
 * Idempotency-Key), so the slots fill evenly.
 */
export const grantListSlot = (programId: string, grantId: string): string =>
  `${programId}#${createHash('sha256').update(grantId, 'utf8').digest().readUInt32BE(0) % GRANT_LIST_SLOTS}`

/** Every slot of a program, in slot order: what a listing reads. */
export const allGrantListSlots = (programId: string): string[] =>
  Array.from({ length: GRANT_LIST_SLOTS }, (_, n) => `${programId}#${n}`)
