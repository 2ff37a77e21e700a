/**
 * A process that enqueues grants into a file-backed GrantQueue and delivers them, until it is
 * killed. argv: baseUrl apiKey programId journalPath count
 */
import { GrantClient, GrantQueue, JsonlFileStore } from '../../client/src'

const [baseUrl, apiKey, programId, journal, count] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
]
const queue = new GrantQueue({
  client: new GrantClient({ apiKey, baseUrl, retry: { baseDelayMs: 5, maxDelayMs: 50 } }),
  store: new JsonlFileStore(journal),
  concurrency: 2,
  retryPauseMs: 20,
})
await queue.start()
for (let i = 0; i < Number(count); i++) {
  await queue.enqueue(programId, {
    recipient: { email: `q${i}@example.com` },
    reason: 'Queued',
    amount: 1 + (i % 4),
  })
}
process.stdout.write('enqueued\n')
setInterval(() => process.stdout.write(`${JSON.stringify(queue.counts())}\n`), 50)
