import type { BatchBody } from './api'

/**
 * What the send-to-many page keeps in this browser's memory: what a commit needs to be sent again
 * (to resume a stalled batch). The program page lists a program's batches from the management API
 * (pages/program-batches.tsx); nothing is kept in storage.
 */
export const pendingCommits = new Map<string, BatchBody & { key: string }>()
