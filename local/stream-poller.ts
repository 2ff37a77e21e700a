import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb'
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamSdkRecord,
} from '@aws-sdk/client-dynamodb-streams'
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda'

/**
 * What Lambda's DynamoDB event source mapping does, for `npm start` and the tests, over DynamoDB
 * Local's own stream (it implements DescribeStream, GetShardIterator and GetRecords of the
 * DynamoDB Streams API; records are readable as soon as the write returns): read each shard in
 * order, hand the function `DynamoDBStreamEvent`s of at most `batchSize` records, and on a partial
 * batch response (ReportBatchItemFailures) or a throw, retry from the first failed record, up to
 * `retryAttempts` times, then give the batch up (Lambda's on-failure destination: here
 * `givenUp`). Not modelled: bisecting a failing batch, parallelization factor, event filters (the
 * reader checks the grant prefix itself), Lambda's 1 s batching window.
 */

export type StreamHandler = (event: DynamoDBStreamEvent) => Promise<unknown>

export type StreamPollerOptions = {
  client: DynamoDBStreamsClient
  streamArn: string
  handler: StreamHandler
  batchSize: number
  retryAttempts: number
  /**
   * Where to start in the shards open when the poller starts: LATEST (npm start over kept data:
   * what earlier runs wrote was handled by them) or TRIM_HORIZON. Shards found later always start
   * at their beginning.
   */
  startAt: 'LATEST' | 'TRIM_HORIZON'
  /** A batch given up on after retryAttempts (Lambda's on-failure record). */
  onGiveUp?: (failure: GivenUp) => void
}

export type GivenUp = {
  shardId: string
  firstSequenceNumber: string
  lastSequenceNumber: string
  records: number
  error: string
}

type ShardState = {
  shardId: string
  parentShardId?: string
  iterator?: string
  /** Read, not yet handed over successfully. */
  pending: DynamoDBRecord[]
  /** The last record handed over (or given up): where a lost iterator starts again. */
  checkpoint?: string
  attempts: number
  /** GetRecords said so (no next iterator) and nothing is pending. */
  done: boolean
  started: boolean
  /** Open when the poller started with LATEST: what it holds then is skipped. */
  startLatest: boolean
}

/** An SDK stream record as Lambda hands it to a function (creation time in epoch seconds). */
export const lambdaRecordOf = (record: StreamSdkRecord, streamArn: string): DynamoDBRecord => {
  const data = record.dynamodb
  const created = data?.ApproximateCreationDateTime
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(created === undefined
        ? {}
        : { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) }),
      Keys: data?.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      ...(data?.NewImage === undefined
        ? {}
        : { NewImage: data.NewImage as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'] }),
      ...(data?.OldImage === undefined
        ? {}
        : { OldImage: data.OldImage as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'] }),
      SequenceNumber: data?.SequenceNumber,
      SizeBytes: data?.SizeBytes,
      StreamViewType: data?.StreamViewType,
    },
  }
}

/** The table's current stream, or undefined when it has none. */
export const streamArnOf = async (client: DynamoDBClient, tableName: string) =>
  (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.LatestStreamArn

/** A streams client for the endpoint of a DynamoDB Local (local credentials, as the tables'). */
export const createStreamsClient = (endpoint: string, region = 'local') =>
  new DynamoDBStreamsClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  })

export class StreamPoller {
  private readonly shards = new Map<string, ShardState>()
  private described = false
  private passes = 0
  readonly givenUp: GivenUp[] = []

  constructor(private readonly options: StreamPollerOptions) {}

  /**
   * Takes the iterators of the shards open now, so that everything written after this resolves is
   * read (with LATEST, a write made before the first GetShardIterator would be skipped).
   */
  async start(): Promise<void> {
    await this.describe()
    for (const shard of this.shards.values()) {
      if (shard.done || shard.started) continue
      shard.iterator = await this.iteratorFor(shard)
      shard.started = true
      // LATEST is emulated: read from the shard's start to its end now, handing nothing over.
      // (DynamoDB Local's own LATEST iterator missed a record written after it was taken, on a
      // shard that had none yet.)
      if (shard.startLatest) await this.skipToEnd(shard)
    }
  }

  private async skipToEnd(shard: ShardState) {
    for (let page = 0; page < 10_000 && shard.iterator !== undefined; page++) {
      const result = await this.options.client.send(
        new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }),
      )
      const records = result.Records ?? []
      shard.iterator = result.NextShardIterator
      const last = records.at(-1)?.dynamodb?.SequenceNumber
      if (last !== undefined) shard.checkpoint = last
      if (records.length === 0) return
    }
  }

  /**
   * One pass over the stream: for each shard, read what is new (when nothing is pending) and hand
   * over one batch. Answers how many records were handed over and how many are still pending (a
   * failed batch waiting for its retry, or more than one batch read).
   */
  async pollOnce(): Promise<{ delivered: number; pending: number; read: number }> {
    // A new table's stream has no shard until its first write; a closed shard has children.
    if (!this.described) await this.start()
    const open = [...this.shards.values()].some((shard) => !shard.done)
    if (!open || this.passes % 50 === 0) await this.describe()
    this.passes++
    let delivered = 0
    let read = 0
    for (const shard of this.shards.values()) {
      if (shard.done) continue
      // A child shard waits until its parent is read to its end: records stay in order per key.
      const parent = shard.parentShardId ? this.shards.get(shard.parentShardId) : undefined
      if (parent !== undefined && !parent.done) continue
      if (shard.pending.length === 0) read += await this.read(shard)
      if (shard.pending.length > 0) delivered += await this.deliver(shard)
      if (shard.pending.length === 0 && shard.iterator === undefined && shard.started) {
        shard.done = true
        this.described = false // a closed shard has children: look for them
      }
    }
    const pending = [...this.shards.values()].reduce((n, s) => n + s.pending.length, 0)
    return { delivered, pending, read }
  }

  private async describe() {
    const { client, streamArn } = this.options
    let exclusiveStartShardId: string | undefined
    const first = this.shards.size === 0 && !this.described
    do {
      const page = await client.send(
        new DescribeStreamCommand({
          StreamArn: streamArn,
          ...(exclusiveStartShardId ? { ExclusiveStartShardId: exclusiveStartShardId } : {}),
        }),
      )
      for (const shard of page.StreamDescription?.Shards ?? []) {
        if (shard.ShardId === undefined || this.shards.has(shard.ShardId)) continue
        const closed = shard.SequenceNumberRange?.EndingSequenceNumber !== undefined
        this.shards.set(shard.ShardId, {
          shardId: shard.ShardId,
          ...(shard.ParentShardId ? { parentShardId: shard.ParentShardId } : {}),
          pending: [],
          attempts: 0,
          // At the start with LATEST, a shard already closed holds only what earlier runs handled.
          done: first && this.options.startAt === 'LATEST' && closed,
          started: false,
          startLatest: first && this.options.startAt === 'LATEST',
        })
      }
      exclusiveStartShardId = page.StreamDescription?.LastEvaluatedShardId
    } while (exclusiveStartShardId)
    this.described = true
  }

  private async iteratorFor(shard: ShardState): Promise<string | undefined> {
    const { client, streamArn } = this.options
    const position =
      shard.checkpoint !== undefined
        ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: shard.checkpoint }
        : { ShardIteratorType: 'TRIM_HORIZON' as const }
    const result = await client.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.shardId, ...position }),
    )
    return result.ShardIterator
  }

  private async read(shard: ShardState): Promise<number> {
    if (!shard.started) {
      shard.iterator = await this.iteratorFor(shard)
      shard.started = true
    }
    if (shard.iterator === undefined) return 0
    try {
      const page = await this.options.client.send(
        new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }),
      )
      const records = (page.Records ?? []).map((r) => lambdaRecordOf(r, this.options.streamArn))
      shard.pending.push(...records)
      shard.iterator = page.NextShardIterator
      return records.length
    } catch (error) {
      // An expired or trimmed iterator: start again after the last record handed over.
      const name = (error as Error).name
      if (name === 'ExpiredIteratorException' || name === 'TrimmedDataAccessException') {
        shard.iterator = await this.iteratorFor(shard)
        return 0
      }
      throw error
    }
  }

  /** Hands the shard's next batch to the handler; answers how many records it took. */
  private async deliver(shard: ShardState): Promise<number> {
    const batch = shard.pending.slice(0, this.options.batchSize)
    let failedFrom: number | undefined
    let error = ''
    try {
      const response = (await this.options.handler({ Records: batch })) as
        | DynamoDBBatchResponse
        | undefined
      const failures = response?.batchItemFailures ?? []
      if (failures.length > 0) {
        // Lambda retries from the lowest sequence number reported; an id not in the batch fails all.
        const indexes = failures.map((f) =>
          batch.findIndex((r) => r.dynamodb?.SequenceNumber === f.itemIdentifier),
        )
        failedFrom = indexes.some((i) => i < 0) ? 0 : Math.min(...indexes)
        error = 'partial batch failure'
      }
    } catch (thrown) {
      failedFrom = 0
      error = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown)
    }
    const taken = failedFrom ?? batch.length
    if (taken > 0) {
      shard.checkpoint = batch[taken - 1]?.dynamodb?.SequenceNumber
      shard.pending.splice(0, taken)
      shard.attempts = 0
    }
    if (failedFrom === undefined) return taken
    shard.attempts++
    if (shard.attempts > this.options.retryAttempts) {
      const rest = shard.pending.splice(0, batch.length - taken)
      const failure: GivenUp = {
        shardId: shard.shardId,
        firstSequenceNumber: rest[0]?.dynamodb?.SequenceNumber ?? '',
        lastSequenceNumber: rest.at(-1)?.dynamodb?.SequenceNumber ?? '',
        records: rest.length,
        error,
      }
      shard.checkpoint = failure.lastSequenceNumber || shard.checkpoint
      shard.attempts = 0
      this.givenUp.push(failure)
      this.options.onGiveUp?.(failure)
    }
    return taken
  }
}
