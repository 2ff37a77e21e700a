import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { MODES } from '../domain/api-key'
import { requestIdBounds, requestIdTime } from '../domain/request-id'
import { type RequestLogEntry, requestLogPartition } from '../domain/request-log'
import {
  decodeRequestLogCursor,
  encodeRequestLogCursor,
  requestLogStreams,
} from '../domain/request-log-query'
import { batchGetAll } from './kernel/batch'
import { mergeQueries, type StreamPosition } from './kernel/merge-queries'
import { sendWith } from './paging'
import type { RequestLogCallOptions, RequestLogPage, RequestLogQuery } from './request-log.store'

/**
 * With a filter, the most items one page's Queries evaluate after the first round (DynamoDB
 * reads, counts and drops the others): about 300 KB of entries. A page that reaches it ends short
 * of `limit`, with a cursor that goes on from where each partition stopped.
 */
export const REQUEST_LOG_PAGE_ITEMS = 1_000

type Item = RequestLogEntry & { pk: string; sk: string; purgeAt?: number }

/** An item as the log's entry: its fields, without the table's keys and TTL. */
const entryOf = ({ pk: _pk, sk: _sk, purgeAt: _purgeAt, ...entry }: Item): RequestLogEntry => entry

/**
 * The request log's reads (table `requests`, functions/table-schema.ts): a listing is one Query
 * per partition of the modes asked for (REQUEST_LOG_SLOTS each), newest first, merged by request
 * id (which sorts by time); one entry is one BatchGetItem of the id's key in either mode.
 */
export class DynamoDbRequestLogReads {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { requests: string },
  ) {}

  async listEntries(
    query: RequestLogQuery,
    options: RequestLogCallOptions = {},
  ): Promise<RequestLogPage> {
    const streams = requestLogStreams(query.issuerId, query.mode)
    const positions =
      query.cursor === undefined
        ? streams.map((): 'start' => 'start')
        : decodeRequestLogCursor(query.cursor, streams.length)
    if (positions === undefined) throw new Error('A request log cursor not made for this listing')
    const filters = Object.entries({
      keyId: query.keyId,
      status: query.status,
      code: query.code,
    }).filter(([, value]) => value !== undefined)
    const from = query.since === undefined ? 'req_' : requestIdBounds(Date.parse(query.since)).from
    const to = query.until === undefined ? 'req_~' : requestIdBounds(Date.parse(query.until)).to
    const queries = streams.map((pk) => ({
      TableName: this.tables.requests,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ...(filters.length === 0
        ? {}
        : { FilterExpression: filters.map(([name]) => `#${name} = :${name}`).join(' AND ') }),
      ...(filters.length === 0
        ? {}
        : { ExpressionAttributeNames: Object.fromEntries(filters.map(([n]) => [`#${n}`, n])) }),
      ExpressionAttributeValues: {
        ':pk': pk,
        ':from': from,
        ':to': to,
        ...Object.fromEntries(filters.map(([name, value]) => [`:${name}`, value])),
      },
      ScanIndexForward: false,
    }))
    const page = await mergeQueries<Item>(sendWith(this.client, options.signal), {
      queries,
      positions: positions.map(
        (p, n): StreamPosition => (p === 'start' || p === 'done' ? p : { pk: streams[n], sk: p }),
      ),
      limit: query.limit,
      before: (a, b) => a.sk > b.sk,
      keyOf: (item) => ({ pk: item.pk, sk: item.sk }),
      // About a partition's share of the page, with a margin (sqrt: about 3 standard deviations),
      // so one round nearly always fills an unfiltered page; a filtered one reads more a round.
      readSize:
        filters.length === 0
          ? Math.ceil(query.limit / streams.length) + Math.ceil(Math.sqrt(query.limit)) + 1
          : Math.ceil(REQUEST_LOG_PAGE_ITEMS / 4 / streams.length),
      maxItems: REQUEST_LOG_PAGE_ITEMS,
    })
    const entries = page.items.map(entryOf)
    if (!page.more) return { entries }
    const next = page.positions.map((p) =>
      p === 'start' || p === 'done' ? p : String((p as { sk: unknown }).sk),
    )
    return { entries, nextCursor: encodeRequestLogCursor(next) }
  }

  async getEntry(
    issuerId: string,
    requestId: string,
    options: RequestLogCallOptions = {},
  ): Promise<RequestLogEntry | undefined> {
    if (requestIdTime(requestId) === undefined) return undefined
    const keys = MODES.map((mode) => ({
      pk: requestLogPartition(issuerId, mode, requestId),
      sk: requestId,
    }))
    const items = await batchGetAll<Item>(this.client, this.tables.requests, keys, {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    const item = items[0]
    return item === undefined ? undefined : entryOf(item)
  }
}
