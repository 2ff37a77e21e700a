/**
 * The grant handler against its floor: the very TransactWriteItems the hot path sends (the
 * store's own call, same items, attributes and expressions: the grant's listing slot, offer
 * window, recipient key and shard, so both sides write the same index entries), without middy, parsing, validation,
 * authentication, mapping or logging. Interleaved pairs, order alternating, so drift and noise hit
 * both sides alike.
 */
import { hashApiKey } from '../../functions/domain/api-key'
import { offerExpiresAt } from '../../functions/domain/grant-lifecycle'
import { grantListSlot } from '../../functions/domain/grant-slots'
import { DEFAULT_SHARDS } from '../../functions/domain/program-shards'
import { DynamoDbGrantStore } from '../../functions/stores/grants.dynamodb'
import type { Benchmark } from '../support/benchmark'
import { median, percentile, ratioRow } from '../support/report'

// 9 rounds of 400 pairs (about 20 s): the median of the rounds moves by about 0.05 with 5 of 200,
// as much as the margin the target leaves, on the same code.
const ROUNDS = 9
const PAIRS = 400

export const benchmark: Benchmark = {
  title: 'handler latency against the bare TransactWriteItems',
  resultPath: ['latency'],
  run: async (bench) => {
    const db = await bench.database()
    const store = new DynamoDbGrantStore(db.documentClient, db.tables)
    const { key: keyRecord } = await store.findAccess({ keyHash: hashApiKey(db.apiKey) })
    if (!keyRecord) throw new Error('bench key missing')
    const floor = async () => {
      const n = db.next()
      const grantId = `gr_bench${String(n).padStart(18, '0')}`
      const outcome = await store.createGrant({
        authority: { kind: 'key', key: keyRecord },
        // The program is unlimited and split, as the handler's: one random shard.
        target: { kind: 'shard', shard: (n + 1) % DEFAULT_SHARDS, limited: false },
        grant: {
          grantId,
          programId: db.programIds[0] as string,
          issuerId: db.issuerId,
          mode: 'TEST',
          recipient: { email: 'ann@example.com' },
          reason: 'Referral bonus',
          amount: 1,
          status: 'reserved',
          createdAt: new Date().toISOString(),
          requestHash: 'f'.repeat(64),
          idempotencyKey: grantId,
          keyId: keyRecord.keyId,
          programSlot: grantListSlot(db.programIds[0] as string, grantId),
          expiresAt: offerExpiresAt(Date.now()),
          recipientKey: 'ann@example.com',
          shard: (n + 1) % DEFAULT_SHARDS,
        },
      })
      if (outcome.kind !== 'created') throw new Error(`floor: ${outcome.kind}`)
    }
    for (let i = 0; i < 150; i++) {
      await db.invoke()
      await floor()
    }
    const latency = {
      handler: [] as { p50: number; p99: number }[],
      floor: [] as { p50: number; p99: number }[],
    }
    for (let r = 0; r < ROUNDS; r++) {
      const h: number[] = []
      const f: number[] = []
      for (let i = 0; i < PAIRS; i++) {
        const first = i % 2 === 0
        for (const side of first ? ['h', 'f'] : ['f', 'h']) {
          const t0 = performance.now()
          if (side === 'h') await db.invoke()
          else await floor()
          ;(side === 'h' ? h : f).push(performance.now() - t0)
        }
      }
      latency.handler.push({ p50: percentile(h, 50), p99: percentile(h, 99) })
      latency.floor.push({ p50: percentile(f, 50), p99: percentile(f, 99) })
    }
    const lat = {
      handlerP50: median(latency.handler.map((x) => x.p50)),
      handlerP99: median(latency.handler.map((x) => x.p99)),
      floorP50: median(latency.floor.map((x) => x.p50)),
      floorP99: median(latency.floor.map((x) => x.p99)),
    }
    return {
      result: { rounds: ROUNDS, pairsPerRound: PAIRS, perRound: latency, medians: lat },
      rows: [
        ratioRow('handler p50 (ms)', lat.handlerP50, lat.floorP50, 1.15),
        ratioRow('handler p99 (ms)', lat.handlerP99, lat.floorP99, 1.3),
      ],
    }
  },
}
