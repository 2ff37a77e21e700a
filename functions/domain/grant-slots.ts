/**
 * Where a grant sits in the grants table's listing index `byProgramSlot`: one of a few slots of its
 * program, pure data (no SDK).
 *
 * Why: every grant is a new item in the program's listing index, so with the program as the
 * index's partition key one program's grants all land in one index partition. A partition takes
 * at most 1,000 write units a second ("By default, every partition in a DynamoDB table is designed
 * to deliver a maximum capacity of 3,000 read units per second and 1,000 write units per second",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html),
 * and the index is written in `createdAt` order, always at the newest end of the key (a split of
 * a hot partition divides its key range; writes that all land at one end of it stay together). A
 * global secondary index that cannot keep up throttles the writes to its table ("if a global
 * secondary index on that table has insufficient write capacity, the write activity on the table
 * will be throttled",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.ThroughputConsiderations.html;
 * the guide's page on GSI write throttling calls it back pressure): past about 1,000 grants a
 * second, one program's grant transactions would be throttled (a grant item up to 1 KB is 1 write
 * unit in the index; 333 a second for the largest, 3 KB). Spread over GRANT_LIST_SLOTS partition
 * keys, one program can put about GRANT_LIST_SLOTS x 1,000 grants a second into its listing.
 *
 * The price is on the read side: a listing reads every slot of the program (one Query per slot,
 * in parallel) and merges them newest first (functions/stores/grant-listing.dynamodb.ts).
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
