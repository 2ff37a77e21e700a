import type { BatchBody } from './api'

/**
 * What the send-to-many page keeps in this browser. The program page lists a program's batches
 * from the management API (pages/program-batches.tsx); `rememberBatch` is only written, by the
 * send-to-many page, and read by nothing any more.
 */
export type KnownBatch = { id: string; createdAt: string; total: number }

const key = (issuerId: string, programId: string) => `vs.console.batches.${issuerId}.${programId}`

const knownBatches = (issuerId: string, programId: string): KnownBatch[] => {
  try {
    const raw = localStorage.getItem(key(issuerId, programId))
    return raw ? (JSON.parse(raw) as KnownBatch[]) : []
  } catch {
    return []
  }
}

export const rememberBatch = (issuerId: string, programId: string, batch: KnownBatch) => {
  const list = [batch, ...knownBatches(issuerId, programId).filter((b) => b.id !== batch.id)]
  try {
    localStorage.setItem(key(issuerId, programId), JSON.stringify(list.slice(0, 10)))
  } catch {
    // Storage full or off: the batch page still works from its address.
  }
}

/** What a commit needs to be sent again (to resume a stalled batch): kept in memory only. */
export const pendingCommits = new Map<string, BatchBody & { key: string }>()
