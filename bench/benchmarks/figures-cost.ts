/**
 * What keeping a program's figures costs (issue 32): the real GrantFigures handler (the grants
 * stream's second reader) over the stream records of GRANTS grants' lives (test/support/figures-grants.ts: every
 * state, address corrections, delivery lines), in the consumer's batches on one lane, against
 * DynamoDB Local; then every batch delivered again. Counts, not times: the figures table's calls
 * and write units per grant (each item of a transaction is 2 write units under 1 KB; a holder's
 * index entry 1 more, 2 when its accepted shares move it); calls on any other table would show
 * beside them (none: it writes the figures only).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import type { DynamoDBRecord } from 'aws-lambda'
import type { Runtime } from '../../functions/composition'
import type { Config } from '../../functions/config'
import { consumerById } from '../../functions/consumers'
import { createDocumentClient } from '../../functions/stores/dynamodb-client'
import { makeGrantFiguresHandler } from '../../functions/wiring/grant-figures.consumer'
import { grantLives, lambdaRecordOfWrite, streamOrder } from '../../test/support/figures-grants'
import type { Benchmark } from '../support/benchmark'
import { type Row, round } from '../support/report'

const GRANTS = 2_000

type Tally = { calls: Record<string, number>; writeUnits: number; indexUnits: number }

export const benchmark: Benchmark = {
  title: `figures kept by GrantFigures: DynamoDB calls and write units per grant (${GRANTS.toLocaleString('en')} grants)`,
  resultPath: ['figuresCost'],
  run: async (bench) => {
    const { endpoint, tables } = await bench.dynamoDbLocal()
    const raw = new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    })
    let tally: Tally = { calls: {}, writeUnits: 0, indexUnits: 0 }
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>
        const command = (context.commandName ?? '').replace(/Command$/, '')
        const onFigures = JSON.stringify(input).includes(`"${tables.figures}"`)
        const key = `${onFigures ? 'figures' : 'other'} ${command}`
        tally.calls[key] = (tally.calls[key] ?? 0) + 1
        if (command === 'TransactWriteItems') {
          for (const item of input.TransactItems as { Update: { Key: { pk: string } } }[]) {
            tally.writeUnits += 2
            const values = (item.Update as { ExpressionAttributeValues?: Record<string, unknown> })
              .ExpressionAttributeValues
            if (item.Update.Key.pk.startsWith('holder#')) tally.indexUnits += values?.[':a'] ? 2 : 1
          }
        }
        return next(args)
      },
      { step: 'initialize', name: 'figures-cost-meter' },
    )
    const runtime = {
      config: { tables } as unknown as Config,
      dynamodb: raw,
      documentClient: createDocumentClient(raw),
      clock: { now: Date.now },
      monotonic: { now: () => performance.now() },
    } as unknown as Runtime
    const handler = makeGrantFiguresHandler(runtime)
    const trigger = consumerById('GrantFigures').trigger
    const batchSize = trigger.kind === 'stream' ? trigger.batchSize : 100

    const programId = `prog_bench${Date.now().toString(36)}`
    const records = streamOrder(grantLives(programId, GRANTS, { seed: 32 })).map(
      lambdaRecordOfWrite,
    )
    const deliver = async () => {
      tally = { calls: {}, writeUnits: 0, indexUnits: 0 }
      for (let from = 0; from < records.length; from += batchSize) {
        let batch: DynamoDBRecord[] = records.slice(from, from + batchSize)
        while (batch.length > 0) {
          const failed = (await handler({ Records: batch })).batchItemFailures[0]?.itemIdentifier
          if (failed === undefined) break
          batch = batch.slice(batch.findIndex((r) => r.dynamodb?.SequenceNumber === failed))
        }
      }
      return tally
    }
    const first = await deliver()
    const again = await deliver()
    raw.destroy()

    const perGrant = (n: number) => round(n / GRANTS, 3)
    const sum = (t: Tally, side: string) =>
      Object.entries(t.calls)
        .filter(([k]) => k.startsWith(side))
        .reduce((n, [, v]) => n + v, 0)
    const calls = (t: Tally, side: string) =>
      Object.entries(t.calls)
        .filter(([k]) => k.startsWith(side))
        .map(([k, v]) => `${perGrant(v)} ${k.slice(side.length + 1)}`)
        .join(', ')
    const rows: Row[] = [
      {
        metric: `GrantFigures: DynamoDB calls per grant (${GRANTS.toLocaleString('en')} grants, ${records.length.toLocaleString('en')} records in batches of ${batchSize}) (\`figures-cost\`)`,
        value: `${perGrant(sum(first, 'figures'))} (${calls(first, 'figures')})`,
        baseline: `${perGrant(sum(first, 'other'))} on other tables${sum(first, 'other') > 0 ? ` (${calls(first, 'other')})` : ''}`,
      },
      {
        metric:
          'GrantFigures: write units per grant on the figures table and its index (`figures-cost`)',
        value: `${perGrant(first.writeUnits)} table + ${perGrant(first.indexUnits)} index`,
      },
      {
        metric: 'GrantFigures: every batch delivered again, per grant (`figures-cost`)',
        value: `${perGrant(sum(again, 'figures'))} calls (${calls(again, 'figures')}), ${perGrant(again.writeUnits)} write units`,
      },
    ]
    return {
      rows,
      result: { grants: GRANTS, records: records.length, batchSize, first, again },
    }
  },
}
