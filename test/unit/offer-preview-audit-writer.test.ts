import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { AuditEntry } from '../../functions/domain/people'
import { DynamoDbAuditWriter } from '../../functions/stores/audit-writer.dynamodb'
import { DynamoDbOfferPreviewReader } from '../../functions/stores/offer-preview.dynamodb'

/**
 * The two stores the webhook routes and the offer preview read and write through (they sent their
 * own commands before): which command, on which table, with the caller's abort signal.
 */
const clientAnswering = (answer: (input: Record<string, unknown>) => unknown) => {
  const sent: { name: string; input: Record<string, unknown>; signal: unknown }[] = []
  const client = {
    send: async (
      command: { constructor: { name: string }; input: Record<string, unknown> },
      options?: { abortSignal?: unknown },
    ) => {
      sent.push({
        name: command.constructor.name,
        input: command.input,
        signal: options?.abortSignal,
      })
      return answer(command.input)
    },
  } as unknown as DynamoDBDocumentClient
  return { client, sent }
}

describe('DynamoDbOfferPreviewReader', () => {
  const tables = { programs: 'Programs', issuers: 'Issuers' }

  it('reads the program head and the issuer name side by side', async () => {
    const { client, sent } = clientAnswering((input) =>
      input.TableName === 'Programs'
        ? { Item: { programId: 'p1', issuerId: 'i1', name: 'Bonus' } }
        : { Item: { name: 'Acme' } },
    )
    const signal = new AbortController().signal
    const sources = await new DynamoDbOfferPreviewReader(client, tables).sources(
      { programId: 'p1', issuerId: 'i1' },
      { signal },
    )
    expect(sources).toEqual({
      program: { programId: 'p1', issuerId: 'i1', name: 'Bonus' },
      issuerName: 'Acme',
    })
    expect(sent).toEqual([
      { name: 'GetCommand', input: { TableName: 'Programs', Key: { programId: 'p1' } }, signal },
      {
        name: 'GetCommand',
        input: {
          TableName: 'Issuers',
          Key: { issuerId: 'i1' },
          ProjectionExpression: '#name',
          ExpressionAttributeNames: { '#name': 'name' },
        },
        signal,
      },
    ])
  })

  it('leaves out what is missing', async () => {
    const { client } = clientAnswering(() => ({}))
    const reader = new DynamoDbOfferPreviewReader(client, tables)
    expect(await reader.sources({ programId: 'p1', issuerId: 'i1' })).toEqual({})
  })
})

describe('DynamoDbAuditWriter', () => {
  it('appends with the transactions’ condition: an id that exists is refused', async () => {
    const { client, sent } = clientAnswering(() => ({}))
    const entry: AuditEntry = {
      issuerId: 'i1',
      entryId: '2026-01-01T00:00:00.000Z#00000000',
      at: '2026-01-01T00:00:00.000Z',
      actor: { kind: 'person', sub: 's1', email: 'a@example.com' },
      action: 'webhook.test',
      target: { type: 'webhook_endpoint', id: 'e1' },
    }
    const signal = new AbortController().signal
    await new DynamoDbAuditWriter(client, { audit: 'Audit' }).append(entry, { signal })
    expect(sent).toEqual([
      {
        name: 'PutCommand',
        input: {
          TableName: 'Audit',
          Item: entry,
          ConditionExpression: 'attribute_not_exists(#id)',
          ExpressionAttributeNames: { '#id': 'entryId' },
        },
        signal,
      },
    ])
  })
})
