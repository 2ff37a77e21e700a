import { QueueRefused, type QueueSender, sendAll } from '../../functions/runtime/queue-sender'

/** A queue that refuses the entries `refuse` names, call by call, and records what it took. */
const queue = (refuse: (id: string, call: number) => boolean) => {
  const taken: string[] = []
  const calls: string[][] = []
  const sender: QueueSender = {
    async sendBatch(entries) {
      calls.push(entries.map((e) => e.id))
      const failed = entries.filter((e) => refuse(e.id, calls.length)).map((e) => e.id)
      taken.push(...entries.filter((e) => !failed.includes(e.id)).map((e) => e.id))
      return { failed }
    },
  }
  return { sender, taken, calls }
}

const entries = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: String(i), body: `{"n":${i}}` }))

describe('sendAll', () => {
  it('sends 10 a call, and sends only the refused entries again, after a wait', async () => {
    const waits: number[] = []
    // Entry 3 refused on the first call that carries it; entry 17 on its first two.
    let seen3 = 0
    let seen17 = 0
    const q = queue((id) => (id === '3' ? seen3++ < 1 : id === '17' ? seen17++ < 2 : false))
    await sendAll(q.sender, entries(25), {
      parallel: 1,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0.5,
    })
    expect(q.taken.sort((a, b) => Number(a) - Number(b))).toEqual(entries(25).map((e) => e.id))
    expect(q.calls.map((c) => c.length)).toEqual([10, 1, 10, 1, 1, 5])
    expect(waits).toHaveLength(3)
  })

  it('throws QueueRefused with what was taken when entries are still refused after 4 sends', async () => {
    const q = queue((id) => id === '0' || id === '11')
    const error = await sendAll(q.sender, entries(12), { sleep: async () => {} }).catch((e) => e)
    expect(error).toBeInstanceOf(QueueRefused)
    expect(error).toMatchObject({ taken: 10, total: 12 })
    // Each refused entry was offered 4 times; nothing else twice.
    expect(q.calls.flat().filter((id) => id === '0')).toHaveLength(4)
    expect(q.calls.flat().filter((id) => id === '5')).toHaveLength(1)
  })

  it('sends nothing for no entries', async () => {
    const q = queue(() => false)
    await sendAll(q.sender, [])
    expect(q.calls).toEqual([])
  })
})
