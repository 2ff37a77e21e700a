/**
 * Queues whose consumer is held (LocalPipeline.hold, `POST /_local/pipeline/hold`): each with how
 * many more messages its consumer may take. A test holds one to catch work mid-way, exactly.
 */
export class QueueHolds {
  private readonly holds = new Map<string, { let: number }>()

  /** How many messages a poll of `queue` may take now: `batchSize`, or what its hold lets through. */
  allowance(queue: string, batchSize: number) {
    return Math.min(batchSize, this.holds.get(queue)?.let ?? batchSize)
  }

  /**
   * Counts `n` off the queue's hold before a poll (so pollers side by side never take more than it
   * lets); answers what gives back the part the poll did not receive.
   */
  take(queue: string, n: number): (received: number) => void {
    const hold = this.holds.get(queue)
    if (hold === undefined) return () => {}
    hold.let -= n
    return (received) => {
      if (this.holds.get(queue) === hold) hold.let += n - received
    }
  }

  /** Holds `queue` letting `letThrough` through (set anew), or releases it (every queue: undefined). */
  set(queue: string | undefined, held: boolean, letThrough = 0) {
    if (!Number.isInteger(letThrough) || letThrough < 0) {
      throw new Error(`letThrough must be a whole number, got ${letThrough}`)
    }
    if (held) {
      if (queue === undefined) throw new Error('Name the queue to hold')
      this.holds.set(queue, { let: letThrough })
    } else if (queue === undefined) this.holds.clear()
    else this.holds.delete(queue)
  }

  view(): Record<string, { let: number }> {
    return Object.fromEntries([...this.holds].map(([id, h]) => [id, { let: h.let }]))
  }
}
