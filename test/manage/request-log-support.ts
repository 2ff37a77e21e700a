import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb'
import {
  REQUEST_LOG_DAYS,
  type RequestLogEntry,
  requestLogPartition,
} from '../../functions/domain/request-log'
import { config, documentClient } from '../support/runtime'

/**
 * Puts entries in the request log's table in the layout of the contract (table-schema.ts
 * `requests`): the writer's own layout, without the writer, for the reads' tests.
 */
export const putRequestLog = async (entries: readonly RequestLogEntry[]) => {
  for (let i = 0; i < entries.length; i += 25) {
    const items = entries.slice(i, i + 25).map((entry) => ({
      PutRequest: {
        Item: {
          pk: requestLogPartition(entry.issuerId, entry.mode, entry.requestId),
          sk: entry.requestId,
          ...entry,
          purgeAt: Math.floor(Date.parse(entry.at) / 1000) + REQUEST_LOG_DAYS * 86_400,
        },
      },
    }))
    const result = await documentClient.send(
      new BatchWriteCommand({ RequestItems: { [config.tables.requests]: items } }),
    )
    if (Object.keys(result.UnprocessedItems ?? {}).length > 0) throw new Error('unprocessed')
  }
}
