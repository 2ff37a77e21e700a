import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { issuerItems, issuerUpdate } from '../../functions/stores/issuer-items.dynamodb'
import type { Send } from '../../functions/stores/paging'

/** functions/stores/issuer-items.dynamodb.ts: an admin Update kept within the caller's issuer. */
describe('issuerUpdate', () => {
  const update = {
    TableName: 'programs',
    Key: { programId: 'prg_1' },
    UpdateExpression: 'SET #status = :to',
    ConditionExpression: 'attribute_exists(programId)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':to': 'paused' },
  }

  it("adds the issuer's condition and value, and asks for the item when refused", () => {
    expect(issuerUpdate('iss_1', update)).toEqual({
      Update: {
        ...update,
        ConditionExpression: 'attribute_exists(programId) AND issuerId = :issuer',
        ExpressionAttributeValues: { ':to': 'paused', ':issuer': 'iss_1' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    })
  })

  it('changes only the refusal answer without an issuer', () => {
    expect(issuerUpdate(undefined, update)).toEqual({
      Update: { ...update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
    })
  })

  it('sends no empty map of values', () => {
    const { ExpressionAttributeValues: _, ...bare } = update
    expect(issuerUpdate(undefined, bare).Update).not.toHaveProperty('ExpressionAttributeValues')
  })
})

/** functions/stores/issuer-items.dynamodb.ts issuerItems: keys through the index, items read after. */
describe('issuerItems', () => {
  it('queries the index for the issuer, then reads each item by its key', async () => {
    const queries: Record<string, unknown>[] = []
    const send = (async (command: { input: Record<string, unknown> }) => {
      queries.push(command.input)
      return {
        Items: [
          { keyHash: 'a', issuerId: 'iss_1' },
          { keyHash: 'b', issuerId: 'iss_1' },
        ],
      }
    }) as unknown as Send
    const reads: unknown[] = []
    const client = {
      send: async (command: { input: { RequestItems: Record<string, { Keys: unknown[] }> } }) => {
        reads.push(command.input.RequestItems)
        const keys = command.input.RequestItems.keys?.Keys ?? []
        return { Responses: { keys: keys.map((key) => ({ ...(key as object), full: true })) } }
      },
    } as unknown as DynamoDBDocumentClient
    const items = await issuerItems(
      client,
      send,
      {},
      {
        table: 'keys',
        index: 'byIssuer',
        key: 'keyHash',
        issuerId: 'iss_1',
        query: { ProjectionExpression: 'keyHash' },
      },
    )
    expect(queries).toEqual([
      {
        TableName: 'keys',
        IndexName: 'byIssuer',
        KeyConditionExpression: 'issuerId = :issuer',
        ExpressionAttributeValues: { ':issuer': 'iss_1' },
        ProjectionExpression: 'keyHash',
        ExclusiveStartKey: undefined,
      },
    ])
    expect(reads).toEqual([
      { keys: expect.objectContaining({ Keys: [{ keyHash: 'a' }, { keyHash: 'b' }] }) },
    ])
    expect(items).toEqual([
      { keyHash: 'a', full: true },
      { keyHash: 'b', full: true },
    ])
  })
})
