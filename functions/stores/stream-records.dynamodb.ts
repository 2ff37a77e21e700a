import type { AttributeValue } from '@aws-sdk/client-dynamodb'
import { unmarshall } from '@aws-sdk/util-dynamodb'
import type { DynamoDBRecord, AttributeValue as StreamAttributeValue } from 'aws-lambda'
import type { TableChange } from './stream-records.store'

// aws-lambda's AttributeValue and the SDK's describe the same JSON.
const decoded = (image: Record<string, StreamAttributeValue> | undefined) =>
  image === undefined ? undefined : unmarshall(image as Record<string, AttributeValue>)

/** A DynamoDB stream record (Lambda's event, or local/stream-poller.ts's) as a plain change. */
export const tableChangeOf = (record: DynamoDBRecord): TableChange => {
  const data = record.dynamodb
  return {
    sequenceNumber: data?.SequenceNumber,
    eventName: record.eventName,
    keys: decoded(data?.Keys),
    newImage: decoded(data?.NewImage),
    oldImage: decoded(data?.OldImage),
    approximateCreationDateTime: data?.ApproximateCreationDateTime,
  }
}
