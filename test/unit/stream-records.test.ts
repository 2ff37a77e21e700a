import type { DynamoDBRecord } from 'aws-lambda'
import { tableChangeOf } from '../../functions/stores/stream-records.dynamodb'

/** A DynamoDB stream record as Lambda delivers it, decoded to the plain change core reads. */

test('a modification: its sequence number, event, keys and both images as plain records', () => {
  const record: DynamoDBRecord = {
    eventName: 'MODIFY',
    dynamodb: {
      SequenceNumber: '100',
      ApproximateCreationDateTime: 1_767_225_600,
      Keys: { grantId: { S: 'gr_1' } },
      NewImage: {
        grantId: { S: 'gr_1' },
        amount: { N: '25' },
        recipient: { M: { email: { S: 'ann@example.com' } } },
        history: { L: [{ M: { event: { S: 'transition' } } }] },
      },
      OldImage: { grantId: { S: 'gr_1' }, amount: { N: '20' }, open: { BOOL: true } },
    },
  }
  expect(tableChangeOf(record)).toEqual({
    sequenceNumber: '100',
    eventName: 'MODIFY',
    keys: { grantId: 'gr_1' },
    newImage: {
      grantId: 'gr_1',
      amount: 25,
      recipient: { email: 'ann@example.com' },
      history: [{ event: 'transition' }],
    },
    oldImage: { grantId: 'gr_1', amount: 20, open: true },
    approximateCreationDateTime: 1_767_225_600,
  })
})

test('what the record does not carry stays undefined (a removal with keys only, a record with no data)', () => {
  expect(
    tableChangeOf({
      eventName: 'REMOVE',
      dynamodb: { SequenceNumber: '7', Keys: { grantId: { S: 'gr_2' } } },
    }),
  ).toEqual({
    sequenceNumber: '7',
    eventName: 'REMOVE',
    keys: { grantId: 'gr_2' },
    newImage: undefined,
    oldImage: undefined,
    approximateCreationDateTime: undefined,
  })
  expect(tableChangeOf({})).toEqual({
    sequenceNumber: undefined,
    eventName: undefined,
    keys: undefined,
    newImage: undefined,
    oldImage: undefined,
    approximateCreationDateTime: undefined,
  })
})
