import {
  type DynamoDBClient,
  DynamoDBServiceException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb'
import {
  deployedIndexes,
  type IndexSchema,
  TABLES,
  type TableKey,
} from '../../functions/table-schema'

/**
 * A conflict-faithful model of DynamoDB, as SDK middleware over a real client (DynamoDB Local
 * underneath). DynamoDB Local decides what every call DOES (conditions, data); the model decides
 * what DynamoDB Local cannot show: transaction conflicts, per-partition throttling, and time.
 *
 * Sources of its rules and parameters (README, "One hot program", restates them):
 * - Conflicts, "Transaction conflict handling in DynamoDB"
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html):
 *   a TransactWriteItems is rejected when an item in it is part of another ongoing
 *   TransactWriteItems; a PutItem/UpdateItem/DeleteItem on such an item fails with
 *   TransactionConflictException; a TransactGetItems is rejected when one of its items is being
 *   written. The rejection is a TransactionCanceledException whose CancellationReasons carry
 *   `TransactionConflict` at the conflicting items and `None` elsewhere, with the message DynamoDB
 *   sends ("Transaction cancelled, please refer cancellation reasons for specific reasons [...]").
 *   A transaction holds every item it names, ConditionCheck included, from its start for its
 *   service time (prepare to commit, "Distributed Transactions at Scale in Amazon DynamoDB",
 *   USENIX ATC 2023). A rejected transaction holds nothing.
 * - Throughput: each partition serves at most 1,000 write units per second (on-demand throttling,
 *   https://repost.aws/knowledge-center/on-demand-table-throttling-dynamodb, and "warm throughput"
 *   docs); a new on-demand table starts with 4,000 write units per second, so 4 partitions. A
 *   transactional write costs 2 units per KB of item (ConditionCheck included); an index write 1
 *   per KB, standard rate. An index whose partition is out of units throttles the table's write
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.ThroughputConsiderations.html).
 *   Each partition is a token bucket refilled at 1,000 units per second, holding at most
 *   `burstSeconds` of them. Split for heat is not modelled (pessimistic for hot keys that could split; a GSI keyed
 *   by program with a rising sort key cannot split anyway).
 * - Time: DynamoDB promises single-digit-millisecond latency for single-item operations; a
 *   transaction is two rounds (prepare, commit). Service times are log-normal; the parameters are
 *   ASSUMPTIONS (see MODEL_DEFAULTS), and the bench also runs with them doubled.
 */

export type LogNormal = { medianMs: number; p99Ms: number }

export type ModelParams = {
  /** How long a transaction (write or get) takes and holds its items. */
  transaction: LogNormal
  /** A single-item read or write, a BatchGetItem. */
  single: LogNormal
  /** How long a rejected (conflict or throttle) call takes to answer. */
  rejection: LogNormal
  /** Partitions per table and per index (hash of the partition key value, modulo this). */
  partitions: number
  /** Write units per partition per second. */
  partitionWcu: number
  /**
   * How much unused capacity a partition may bank, in seconds of its rate. The limit is a rate per
   * second; a short burst allowance keeps runs of a few virtual seconds at the sustained rate
   * instead of living on a full second of banked units.
   */
  burstSeconds: number
}

export const MODEL_DEFAULTS: ModelParams = {
  transaction: { medianMs: 8, p99Ms: 25 },
  single: { medianMs: 3, p99Ms: 9 },
  rejection: { medianMs: 3, p99Ms: 9 },
  partitions: 4,
  partitionWcu: 1_000,
  burstSeconds: 0.1,
}

/**
 * The clock the model waits on: VirtualTime (one client at a time, concurrency inside a client by
 * `fork`), or IoVirtualTime (./io-virtual-time.ts: any concurrency, standing still while real I/O
 * is in flight).
 */
export type ModelClock = { now(): number; until(at: number): Promise<void> }

export type ModelStats = {
  calls: Record<string, number>
  transactionConflicts: number
  throttles: number
  singleConflicts: number
  /** Write units consumed per partition (`table/index#p`), for the WCU check. */
  unitsByPartition: Map<string, number>
}

type Hold = { until: number; kind: 'tx' | 'single' }
type Touch = { table: string; itemId: string; pk: string; units: number; indexes: IndexWrite[] }
type IndexWrite = { partition: string; units: number }
type Action = 'Put' | 'Update' | 'Delete' | 'ConditionCheck' | 'Get'

/**
 * The global secondary indexes the model writes, per table: those a plain `cdk deploy` builds
 * (`deployedIndexes`, the list lib/grant-tables.ts builds from), or with `keepLegacyIndexes` those
 * of a stage deployed with `-c keepLegacyIndexes=true`. test/reliability/contention-model.test.ts
 * holds them equal to the synthesized template's, so an index added later is modelled as built.
 */
export const modelledIndexes = ({
  keepLegacyIndexes = false,
}: {
  keepLegacyIndexes?: boolean
} = {}): Record<TableKey, readonly IndexSchema[]> =>
  Object.fromEntries(
    (Object.keys(TABLES) as TableKey[]).map((key) => [
      key,
      deployedIndexes(key, { keepLegacy: keepLegacyIndexes }),
    ]),
  ) as Record<TableKey, readonly IndexSchema[]>

/** Attaches the model to a client; returns its statistics. Tests and bench only. */
export const attachContentionModel = (
  client: DynamoDBClient,
  {
    time,
    tables,
    params = MODEL_DEFAULTS,
    random = Math.random,
    keepLegacyIndexes = false,
  }: {
    time: ModelClock
    /** Physical table names, to find each table's key schema and indexes. */
    tables: Record<TableKey, string>
    params?: ModelParams
    random?: () => number
    /** Model a stage deployed with `-c keepLegacyIndexes=true`: its legacy indexes written too. */
    keepLegacyIndexes?: boolean
  },
): ModelStats => {
  const indexesOf = modelledIndexes({ keepLegacyIndexes })
  const schemaOf = new Map(
    (Object.keys(tables) as TableKey[]).map((key) => [
      tables[key],
      { ...TABLES[key], globalSecondaryIndexes: indexesOf[key] },
    ]),
  )
  const holds = new Map<string, Hold>()
  const buckets = new Map<string, { tokens: number; at: number }>()
  const stats: ModelStats = {
    calls: {},
    transactionConflicts: 0,
    throttles: 0,
    singleConflicts: 0,
    unitsByPartition: new Map(),
  }
  const draw = (d: LogNormal) => logNormal(d, random)

  const held = (itemId: string, at: number, kinds: Hold['kind'][]) => {
    const hold = holds.get(itemId)
    return hold !== undefined && hold.until > at && kinds.includes(hold.kind)
  }

  /** Takes the units from every partition involved, or none if one lacks them. */
  const admit = (touches: Touch[], at: number): boolean[] => {
    const need = new Map<string, number>()
    const add = (partition: string, units: number) =>
      need.set(partition, (need.get(partition) ?? 0) + units)
    for (const t of touches) {
      if (t.units > 0) add(partitionOf(t.table, t.pk, params.partitions), t.units)
      for (const index of t.indexes) add(index.partition, index.units)
    }
    const short = new Set<string>()
    for (const [partition, units] of need) {
      const burst = params.partitionWcu * params.burstSeconds
      const bucket = buckets.get(partition) ?? { tokens: burst, at }
      bucket.tokens = Math.min(
        burst,
        bucket.tokens + ((at - bucket.at) / 1000) * params.partitionWcu,
      )
      bucket.at = at
      buckets.set(partition, bucket)
      if (bucket.tokens < units) short.add(partition)
    }
    if (short.size === 0) {
      for (const [partition, units] of need) {
        ;(buckets.get(partition) as { tokens: number }).tokens -= units
        stats.unitsByPartition.set(partition, (stats.unitsByPartition.get(partition) ?? 0) + units)
      }
    }
    return touches.map(
      (t) =>
        short.has(partitionOf(t.table, t.pk, params.partitions)) ||
        t.indexes.some((index) => short.has(index.partition)),
    )
  }

  const touchOf = (action: Action, request: Record<string, unknown>, transactional: boolean) => {
    const table = request.TableName as string
    const schema = schemaOf.get(table)
    if (!schema) throw new Error(`contention model: unknown table ${table}`)
    const item = (request.Item ?? request.Key) as Record<string, AttrValue>
    const keyNames = [
      schema.partitionKey.name,
      ...('sortKey' in schema ? [schema.sortKey.name] : []),
    ]
    const key = Object.fromEntries(keyNames.map((name) => [name, scalar(item[name])]))
    const size = action === 'Put' ? sizeOf(request.Item as Record<string, AttrValue>) : 1
    const kb = Math.max(1, Math.ceil(size / 1024))
    const writes = action !== 'Get'
    const units = writes ? (transactional ? 2 : 1) * kb : 0
    const indexes: IndexWrite[] =
      action === 'Put' || action === 'Update' || action === 'Delete'
        ? schema.globalSecondaryIndexes.flatMap((index) => {
            // A Put writes the index when the item has its key; an Update when it changes it.
            const writesIndex =
              action === 'Update'
                ? updatesIndex(index, request)
                : item[index.partitionKey.name] !== undefined
            if (!writesIndex) return []
            // An Update's index key is not in the request: the item's own key stands in.
            const value =
              scalar(item[index.partitionKey.name]) || String(key[schema.partitionKey.name])
            return [
              {
                partition: partitionOf(`${table}/${index.indexName}`, value, params.partitions),
                units: kb,
              },
            ]
          })
        : []
    return {
      table,
      itemId: `${table}|${JSON.stringify(key)}`,
      pk: String(key[schema.partitionKey.name]),
      units,
      indexes,
    } satisfies Touch
  }

  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? ''
      stats.calls[command] = (stats.calls[command] ?? 0) + 1
      const input = args.input as Record<string, unknown>
      const at = time.now()

      if (command === 'TransactWriteItemsCommand' || command === 'TransactGetItemsCommand') {
        const writes = command === 'TransactWriteItemsCommand'
        const touches = (input.TransactItems as Record<string, Record<string, unknown>>[]).map(
          (entry) => {
            const [action, request] = Object.entries(entry)[0] as [Action, Record<string, unknown>]
            return touchOf(action, request, true)
          },
        )
        // A write conflicts with ongoing transactional writes; a get with any ongoing write.
        const conflicts = touches.map((t) => held(t.itemId, at, writes ? ['tx'] : ['tx', 'single']))
        if (conflicts.some(Boolean)) {
          stats.transactionConflicts++
          await time.until(at + draw(params.rejection))
          throw cancelled(conflicts.map((c) => (c ? 'TransactionConflict' : 'None')))
        }
        const throttled = writes ? admit(touches, at) : touches.map(() => false)
        if (throttled.some(Boolean)) {
          stats.throttles++
          await time.until(at + draw(params.rejection))
          throw cancelled(throttled.map((t) => (t ? 'ThrottlingError' : 'None')))
        }
        const service = draw(params.transaction)
        // Reads take no hold: only writes make others conflict.
        if (writes)
          for (const t of touches) holds.set(t.itemId, { until: at + service, kind: 'tx' })
        try {
          // DynamoDB Local decides the outcome (conditions, data) at the start of the hold.
          return await next(args)
        } finally {
          await time.until(at + service)
        }
      }

      if (command === 'BatchWriteItemCommand') {
        // Each request a single write of its item (1 unit per KB, its indexes too); no conflicts
        // are modelled (nothing the service batch-writes is ever in a transaction). Short of
        // units, the whole call is refused as DynamoDB refuses a batch none of whose items it could
        // write: pessimistic when only some of them would have been throttled.
        const requests = input.RequestItems as Record<string, Record<string, unknown>[]>
        const touches = Object.entries(requests).flatMap(([TableName, entries]) =>
          entries.map((entry) => {
            const put = entry.PutRequest as { Item: unknown } | undefined
            const del = entry.DeleteRequest as { Key: unknown } | undefined
            return put !== undefined
              ? touchOf('Put', { TableName, Item: put.Item }, false)
              : touchOf('Delete', { TableName, Key: del?.Key }, false)
          }),
        )
        if (admit(touches, at).some(Boolean)) {
          stats.throttles++
          await time.until(at + draw(params.rejection))
          throw refused('ProvisionedThroughputExceededException')
        }
        const service = draw(params.single)
        try {
          return await next(args)
        } finally {
          await time.until(at + service)
        }
      }

      const single = SINGLE_WRITES[command]
      if (single !== undefined) {
        const touch = touchOf(single, input, false)
        if (held(touch.itemId, at, ['tx'])) {
          stats.singleConflicts++
          await time.until(at + draw(params.rejection))
          throw refused('TransactionConflictException')
        }
        if (admit([touch], at).some(Boolean)) {
          stats.throttles++
          await time.until(at + draw(params.rejection))
          throw refused('ProvisionedThroughputExceededException')
        }
        const service = draw(params.single)
        holds.set(touch.itemId, { until: at + service, kind: 'single' })
        try {
          return await next(args)
        } finally {
          await time.until(at + service)
        }
      }

      // Reads (GetItem, BatchGetItem, Query): no conflicts, read units not modelled.
      const service = draw(params.single)
      try {
        return await next(args)
      } finally {
        await time.until(at + service)
      }
    },
    // Before the SDK's retries (finalizeRequest): a rejection reaches the caller, as the
    // service's own does for TransactionCanceledException (which the SDK does not retry).
    { step: 'serialize', name: 'contention-model', priority: 'high' },
  )
  return stats
}

const SINGLE_WRITES: Record<string, Action> = {
  PutItemCommand: 'Put',
  UpdateItemCommand: 'Update',
  DeleteItemCommand: 'Delete',
}

/** A single request refused as DynamoDB refuses it, with DynamoDB's own words. */
const REFUSALS = {
  ProvisionedThroughputExceededException:
    'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
  TransactionConflictException: 'Transaction is ongoing for the item',
} as const
const refused = (name: keyof typeof REFUSALS) =>
  new DynamoDBServiceException({
    name,
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
    message: REFUSALS[name],
  })

const cancelled = (codes: string[]) =>
  new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) =>
      Code === 'None'
        ? { Code }
        : {
            Code,
            Message:
              Code === 'TransactionConflict'
                ? 'Transaction is ongoing for the item'
                : 'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.',
          },
    ),
  })

/** Marshalled (`{ S: "..." }`) from the low-level client, native from the document client. */
type AttrValue = Record<string, unknown> | string | number | undefined

const scalar = (value: AttrValue): string => {
  if (value === undefined) return ''
  if (typeof value !== 'object') return String(value)
  const v = value.S ?? value.N ?? value.B
  return v === undefined ? '' : String(v)
}

/** DynamoDB's item size: attribute names plus values, approximated by the marshalled JSON. */
const sizeOf = (item: Record<string, AttrValue>) => Buffer.byteLength(JSON.stringify(item ?? {}))

/** Whether an UpdateItem changes an index: it names a key or projected attribute of it. */
const updatesIndex = (index: IndexSchema, request: Record<string, unknown>) => {
  // Only what the update expression names (a condition may name anything without writing it).
  const names = (request.ExpressionAttributeNames ?? {}) as Record<string, string>
  const tokens = String(request.UpdateExpression ?? '').match(/#?[A-Za-z0-9_]+/g) ?? []
  const touched = new Set(tokens.map((token) => names[token] ?? token))
  const keys = [index.partitionKey.name, ...(index.sortKey ? [index.sortKey.name] : [])]
  // ALL: any attribute; the model cannot see whether the item has the index's key, and counts it.
  if (index.projection.type === 'ALL') return true
  const projected = index.projection.type === 'INCLUDE' ? index.projection.nonKeyAttributes : []
  return [...keys, ...projected].some((name) => touched.has(name))
}

/** FNV-1a of the key value, modulo the partitions: a stable stand-in for DynamoDB's hash. */
export const partitionOf = (table: string, value: string, partitions: number) => {
  let h = 0x811c9dc5
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return `${table}#${h % partitions}`
}

/** A log-normal draw with the given median and 99th percentile (Box-Muller). */
export const logNormal = ({ medianMs, p99Ms }: LogNormal, random: () => number) => {
  const sigma = Math.log(p99Ms / medianMs) / 2.3263
  const u = Math.max(random(), 1e-12)
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
  return medianMs * Math.exp(sigma * z)
}
