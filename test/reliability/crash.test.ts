import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashApiKey } from '../../functions/domain/api-key'
import type { Seed } from '../../local/seed'
import { grantBody, postGrant, request } from '../support/api'
import { adminCli } from '../support/local-operator'
import { launchNpmStart, waitFor } from '../support/npm-start'

/**
 * Durability: `npm start` (data on disk) takes grants under load and is killed with SIGKILL
 * mid-load. After a restart every grant that was acknowledged with a 201 is still there, and the
 * program's counter equals the sum of its grants. (Killing DynamoDB Local itself with SIGKILL can
 * lose its last acknowledged writes: that is DynamoDB Local's own durability, not the service's;
 * real DynamoDB acknowledges only durable writes.)
 */
/** As a user runs it, with its structured logs on (test/support/npm-start.ts). */
const start = (dir: string) => launchNpmStart(dir, [], { POWERTOOLS_LOG_LEVEL: 'INFO' })

const ready = async (server: { child: ChildProcess; output: () => string }, dir: string) => {
  await waitFor(() => server.output().includes('Ctrl-C stops'), 'the ready banner', server, 120_000)
  return JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as Seed
}

it('keeps every acknowledged grant across a SIGKILL of the local server', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-crash-'))
  const first = start(dir)
  const seed = await ready(first, dir)
  const programId = seed.programs.LIVE

  const acknowledged = new Map<string, Record<string, unknown>>()
  /** Resolved by the 150th acknowledgement: the moment to kill the server, mid-load. */
  let loaded = () => {}
  const underLoad = new Promise<void>((resolve) => {
    loaded = resolve
  })
  let stop = false
  let sent = 0
  const worker = async (w: number) => {
    for (let i = 0; !stop; i++) {
      sent++
      try {
        const call = await postGrant(
          seed.baseUrl,
          programId,
          seed.keys.LIVE,
          grantBody({ amount: 1 + (i % 3) }),
          {
            'idempotency-key': `crash-${w}-${i}`,
          },
        )
        if (call.status === 201) acknowledged.set(call.body.id as string, call.body)
        if (acknowledged.size >= 150) loaded()
      } catch {
        // The server died under this request: unacknowledged, so nothing is promised.
      }
    }
  }
  const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)))
  await underLoad
  // SIGKILL the server process mid-load, nothing cleaned up: its endpoint file stays, and the
  // next start stops whatever of the last run is still there.
  const { serverPid } = JSON.parse(readFileSync(join(dir, 'dynamodb-endpoint.json'), 'utf8'))
  expect(serverPid).toBe(first.child.pid)
  process.kill(serverPid, 'SIGKILL')
  await first.exited
  stop = true
  await load

  const second = start(dir)
  try {
    const again = await ready(second, dir)
    expect(again.keys).toEqual(seed.keys)
    for (const [id, body] of acknowledged) {
      const fetched = await request(again.baseUrl, 'GET', `/programs/${programId}/grants/${id}`, {
        headers: { 'x-api-key': again.keys.LIVE },
      })
      expect({ id, status: fetched.status }).toEqual({ id, status: 200 })
      // The 201's resource, and the grant's life since (issue 19): nothing happened yet.
      expect(fetched.body).toEqual({
        ...body,
        rejectionReason: null,
        expiresAt: expect.any(String),
        delivery: 'pending',
        history: [],
      })
    }
    // The counter moved with the grants and only with them (via the admin CLI, in this process).
    const cli = (args: string[]) => adminCli({ dir }, args)
    const program = await cli(['program', 'show', programId])
    const stored = await cli(['grant', 'list', '--program', programId, '--limit', '1000'])
    expect(stored.nextCursor).toBeNull()
    const sum = stored.grants.reduce((s: number, g: { amount: string }) => s + Number(g.amount), 0)
    expect(program.issued).toBe(sum)
    expect(stored.grants.length).toBeGreaterThanOrEqual(acknowledged.size)
    process.stdout.write(
      `\ncrash run: ${sent} requests sent, ${acknowledged.size} acknowledged before SIGKILL, all ${acknowledged.size} present after restart; ${stored.grants.length} stored (${stored.grants.length - acknowledged.size} committed but unacknowledged), issued ${program.issued} = sum ${sum}\n`,
    )
    // Structured logs of both runs carry no key and no key hash (the banner shows the seed keys by design).
    const logs = (first.output() + second.output()).split('\n').filter((l) => l.startsWith('{'))
    expect(logs.length).toBeGreaterThan(100)
    for (const secret of Object.values(seed.keys)) {
      expect(logs.filter((l) => l.includes(secret) || l.includes(hashApiKey(secret)))).toEqual([])
    }
  } finally {
    await second.stop()
  }
})
