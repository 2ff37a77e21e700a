import type { BatchRecord } from '../../functions/domain/batch'
import { decodeBatchCursor, encodeBatchCursor } from '../../functions/domain/batch'
import { RATE_MIN_MS, toBatchView } from '../../functions/http/batch-view'

/**
 * A batch as the management API shows it, at an injected moment: its state (canceling, stalled),
 * its counts, and how fast it goes (rows per second since its first committed rows, the time left).
 */
const T0 = Date.parse('2026-11-26T20:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

const batch = (over: Partial<BatchRecord> = {}): BatchRecord => ({
  grantId: 'batch#bat_0000000000000000000000000a',
  itemType: 'grantBatch',
  batchId: 'bat_0000000000000000000000000a',
  issuerId: 'iss_x',
  program: 'prg_x',
  mode: 'TEST',
  idempotencyKey: 'k',
  requestHash: 'h',
  chunkPrefix: 'p',
  chunks: 100,
  createdBy: { sub: 's', email: 'a@example.com' },
  submittedAt: at(-2_000),
  enqueuedAt: at(-1_900),
  total: 10_000,
  refused: 40,
  amount: 9_960,
  granted: 0,
  failed: 40,
  canceled: 0,
  chunksDone: 0,
  status: 'queued',
  updatedAt: at(-1_900),
  ...over,
})

describe('toBatchView', () => {
  it('has no rate before any rows are committed, nor in the first seconds after', () => {
    expect(toBatchView(batch(), T0)).toMatchObject({
      status: 'queued',
      startedAt: null,
      rowsPerSecond: null,
      etaSeconds: null,
      counts: { total: 10_000, granted: 0, failed: 40, canceled: 0, pending: 9_960 },
    })
    const started = batch({
      status: 'running',
      startedAt: at(0),
      granted: 400,
      updatedAt: at(0),
    })
    expect(toBatchView(started, T0 + RATE_MIN_MS - 1)).toMatchObject({
      status: 'running',
      rowsPerSecond: null,
      etaSeconds: null,
    })
  })

  it('counts rows tried (not refused ones) per second since startedAt, and the rows left at that rate', () => {
    // 4,000 rows tried in 8 s (2 failed by the grant, beside the 40 refused at commit): 500 rows/s;
    // 5,960 left: 12 s.
    const running = batch({
      status: 'running',
      startedAt: at(0),
      granted: 3_998,
      failed: 42,
      updatedAt: at(7_900),
    })
    expect(toBatchView(running, T0 + 8_000)).toMatchObject({
      rowsPerSecond: 500,
      etaSeconds: 12,
      counts: { pending: 5_960 },
    })
    // One decimal; the time left rounded up.
    const slow = batch({
      status: 'running',
      startedAt: at(0),
      granted: 100,
      updatedAt: at(5_900),
    })
    expect(toBatchView(slow, T0 + 6_000)).toMatchObject({ rowsPerSecond: 16.7, etaSeconds: 592 })
  })

  it('measures a finished batch from its start to its finish, whenever it is read; nothing left', () => {
    const done = batch({
      status: 'done',
      startedAt: at(0),
      finishedAt: at(20_000),
      granted: 9_960,
      chunksDone: 100,
      updatedAt: at(20_000),
    })
    for (const later of [20_000, 3_600_000]) {
      expect(toBatchView(done, T0 + later)).toMatchObject({
        status: 'done',
        rowsPerSecond: 498,
        etaSeconds: 0,
        counts: { pending: 0 },
      })
    }
  })

  it('is canceling once a cancel is asked until the batch is final, with no time left to promise', () => {
    const asked = batch({
      status: 'running',
      startedAt: at(0),
      granted: 5_000,
      updatedAt: at(10_000),
      cancelRequestedAt: at(10_000),
      canceledBy: { sub: 's2', email: 'b@example.com' },
    })
    expect(toBatchView(asked, T0 + 10_000)).toMatchObject({
      status: 'canceling',
      stalled: false,
      cancelRequestedAt: at(10_000),
      canceledBy: { sub: 's2', email: 'b@example.com' },
      rowsPerSecond: 500,
      etaSeconds: null,
    })
    const canceled = {
      ...asked,
      status: 'canceled' as const,
      canceled: 4_900,
      granted: 5_060,
      finishedAt: at(11_000),
    }
    expect(toBatchView(canceled, T0 + 11_000)).toMatchObject({
      status: 'canceled',
      counts: { granted: 5_060, failed: 40, canceled: 4_900, pending: 0 },
      etaSeconds: 0,
    })
    // Too late: every row had been tried; the batch is done, the cancel shown as asked.
    const late = { ...asked, status: 'done' as const, granted: 9_960, finishedAt: at(11_000) }
    expect(toBatchView(late, T0 + 11_000)).toMatchObject({ status: 'done', etaSeconds: 0 })
  })

  it('shows a chunk in the dead letters as stalled, also while canceling, with no time left to promise', () => {
    const stalled = batch({
      status: 'running',
      startedAt: at(0),
      granted: 5_000,
      updatedAt: at(10_000),
      deadLettered: new Set([3, 7]),
    })
    expect(toBatchView(stalled, T0 + 10_000)).toMatchObject({
      status: 'stalled',
      stalled: true,
      deadLetteredChunks: 2,
      rowsPerSecond: 500,
      etaSeconds: null,
    })
    const canceling = { ...stalled, cancelRequestedAt: at(10_000) }
    expect(toBatchView(canceling, T0 + 10_000)).toMatchObject({
      status: 'canceling',
      stalled: true,
    })
  })

  it('reads a batch from before canceled rows were counted as none canceled', () => {
    const { canceled: _c, chunksDone: _d, ...old } = batch({ status: 'running', granted: 10 })
    expect(toBatchView(old as BatchRecord, T0).counts).toEqual({
      total: 10_000,
      granted: 10,
      failed: 40,
      canceled: 0,
      pending: 9_950,
    })
  })
})

describe('the listing cursor', () => {
  it('encodes a position and takes back only what it made', () => {
    const position = { createdAt: at(0), batchId: 'bat_0000000000000000000000000a' }
    const cursor = encodeBatchCursor(position)
    expect(decodeBatchCursor(cursor)).toEqual(position)
    for (const bad of [
      '',
      'zzz',
      `${cursor}=`,
      Buffer.from(`${at(0)} gr_${'0'.repeat(26)}`).toString('base64url'),
      Buffer.from(`${at(0)} bat_0000000000000000000000000a x`).toString('base64url'),
      Buffer.from(`yesterday bat_0000000000000000000000000a`).toString('base64url'),
    ]) {
      expect(decodeBatchCursor(bad)).toBeUndefined()
    }
  })
})
