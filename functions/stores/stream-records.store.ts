/**
 * One change of a table's item as its stream tells it, the images decoded to plain records
 * (stores/stream-records.dynamodb.ts decodes a DynamoDB stream record): what the stream's readers
 * in core/ (grant-stream.ts, webhook-events.ts) read, with no SDK type in sight.
 */
export type TableChange = {
  /** The record's SequenceNumber: the stream's item identifier in a partial batch response. */
  sequenceNumber: string | undefined
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE' | undefined
  /** The item's key attributes (the grants table's: `grantId`). */
  keys: Record<string, unknown> | undefined
  newImage: Record<string, unknown> | undefined
  oldImage: Record<string, unknown> | undefined
  /** When the change was made (epoch seconds), as the stream approximates it. */
  approximateCreationDateTime: number | undefined
}
