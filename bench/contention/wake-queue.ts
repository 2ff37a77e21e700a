/**
 * The sleepers of a virtual clock (./virtual-time.ts, ./io-virtual-time.ts), earliest first: a
 * binary heap on (at, seq), so ties wake in the order they slept.
 */
export type Sleeper = { at: number; seq: number; wake: () => void }

export class WakeQueue {
  private readonly heap: Sleeper[] = []

  get length() {
    return this.heap.length
  }

  push(entry: Sleeper) {
    const q = this.heap
    q.push(entry)
    let i = q.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(q[i] as Sleeper, q[parent] as Sleeper)) break
      ;[q[i], q[parent]] = [q[parent] as Sleeper, q[i] as Sleeper]
      i = parent
    }
  }

  pop(): Sleeper | undefined {
    const q = this.heap
    const top = q[0]
    const last = q.pop()
    if (q.length > 0 && last !== undefined) {
      q[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < q.length && before(q[l] as Sleeper, q[m] as Sleeper)) m = l
        if (r < q.length && before(q[r] as Sleeper, q[m] as Sleeper)) m = r
        if (m === i) break
        ;[q[i], q[m]] = [q[m] as Sleeper, q[i] as Sleeper]
        i = m
      }
    }
    return top
  }
}

const before = (a: Sleeper, b: Sleeper) => a.at < b.at || (a.at === b.at && a.seq < b.seq)
