import { randomUUID } from 'node:crypto'
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs'
import { GrantApiError } from './errors.js'
import type { GrantClient, GrantRequest } from './grant-client.js'

export type QueuedGrant = {
  id: string
  programId: string
  request: GrantRequest
  idempotencyKey: string
}
export type QueueRecord =
  | ({ type: 'enqueued'; at: string } & QueuedGrant)
  | { type: 'delivered'; id: string; grantId: string; at: string }
  | {
      type: 'failed'
      id: string
      error: { status: number; code: string; detail: string; requestId?: string }
      at: string
    }

/** Where the queue keeps its journal. `append` must be durable when it resolves. */
export interface QueueStore {
  load(): Promise<QueueRecord[]>
  append(record: QueueRecord): Promise<void>
}

/** A JSON-lines journal on disk; each append is written and fsync'ed before it resolves. */
export class JsonlFileStore implements QueueStore {
  constructor(private readonly path: string) {}

  async load(): Promise<QueueRecord[]> {
    if (!existsSync(this.path)) return []
    const records: QueueRecord[] = []
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      try {
        records.push(JSON.parse(line) as QueueRecord)
      } catch {
        // A line torn by a crash mid-write: its grant was never acknowledged to the caller.
      }
    }
    return records
  }

  async append(record: QueueRecord): Promise<void> {
    const fd = openSync(this.path, 'a')
    try {
      writeSync(fd, `${JSON.stringify(record)}\n`)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}

export type DeadLetter = QueuedGrant & { error: Extract<QueueRecord, { type: 'failed' }>['error'] }

/**
 * The asynchronous, buffered integration the contract recommends. `enqueue` stores the grant
 * durably and returns; delivery happens in the background with the client's retry policy, and
 * keeps retrying while the API may still accept it. A restarted queue reloads its journal and
 * delivers what was pending with the same Idempotency-Key, so nothing is lost or doubled.
 */
export class GrantQueue {
  private readonly pending: QueuedGrant[] = []
  private readonly inFlight = new Set<string>()
  private readonly dead = new Map<string, DeadLetter>()
  private delivered = 0
  private running = false
  /** Aborted by stop(): ends a delivery's wait for the rate limit at once. */
  private stopping = new AbortController()
  private workers: Promise<void>[] = []
  private wake: (() => void) | undefined

  constructor(
    private readonly options: {
      client: GrantClient
      store: QueueStore
      concurrency?: number
      /** Pause after a delivery that failed in a retryable way, before trying it again. */
      retryPauseMs?: number
    },
  ) {}

  /** Loads the journal and starts delivering what is pending. */
  async start(): Promise<void> {
    const queued = new Map<string, QueuedGrant>()
    for (const record of await this.options.store.load()) {
      if (record.type === 'enqueued') {
        const { type: _t, at: _a, ...grant } = record
        queued.set(record.id, grant)
      } else if (record.type === 'delivered') {
        if (queued.delete(record.id)) this.delivered++
      } else {
        const grant = queued.get(record.id)
        if (grant) this.dead.set(record.id, { ...grant, error: record.error })
        queued.delete(record.id)
      }
    }
    this.pending.push(...queued.values())
    this.running = true
    this.stopping = new AbortController()
    this.workers = Array.from({ length: this.options.concurrency ?? 4 }, () => this.work())
  }

  async enqueue(
    programId: string,
    request: GrantRequest,
    { idempotencyKey = randomUUID() }: { idempotencyKey?: string } = {},
  ): Promise<{ id: string; idempotencyKey: string }> {
    const grant: QueuedGrant = { id: randomUUID(), programId, request, idempotencyKey }
    await this.options.store.append({ type: 'enqueued', at: new Date().toISOString(), ...grant })
    this.pending.push(grant)
    this.wake?.()
    return { id: grant.id, idempotencyKey }
  }

  counts() {
    return {
      pending: this.pending.length + this.inFlight.size,
      delivered: this.delivered,
      failed: this.dead.size,
    }
  }

  deadLetters(): DeadLetter[] {
    return [...this.dead.values()]
  }

  /** Resolves when nothing is pending or in flight. */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight.size > 0) {
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  /** Stops delivering; a delivery waiting (a 429, the pace) ends now and stays pending. */
  async stop(): Promise<void> {
    this.running = false
    this.stopping.abort(new Error('the queue is stopping'))
    this.wake?.()
    await Promise.all(this.workers)
  }

  private async work(): Promise<void> {
    while (this.running) {
      const grant = this.pending.shift()
      if (!grant) {
        await new Promise<void>((resolve) => {
          this.wake = resolve
          setTimeout(resolve, 50)
        })
        continue
      }
      this.inFlight.add(grant.id)
      try {
        const result = await this.options.client.grantTokens(grant.programId, grant.request, {
          idempotencyKey: grant.idempotencyKey,
          signal: this.stopping.signal,
        })
        await this.options.store.append({
          type: 'delivered',
          id: grant.id,
          grantId: result.grant.id,
          at: new Date().toISOString(),
        })
        this.delivered++
      } catch (error) {
        if (error instanceof GrantApiError && !error.retryable) {
          const failure = {
            status: error.status,
            code: error.code,
            detail: error.detail,
            ...(error.requestId ? { requestId: error.requestId } : {}),
          }
          await this.options.store.append({
            type: 'failed',
            id: grant.id,
            error: failure,
            at: new Date().toISOString(),
          })
          this.dead.set(grant.id, { ...grant, error: failure })
        } else {
          // Still deliverable later: back to the queue, same Idempotency-Key (after a restart,
          // if stopping: the journal still has it as enqueued).
          if (this.running) {
            await new Promise((r) => setTimeout(r, this.options.retryPauseMs ?? 1_000))
          }
          this.pending.push(grant)
        }
      } finally {
        this.inFlight.delete(grant.id)
      }
    }
  }
}
