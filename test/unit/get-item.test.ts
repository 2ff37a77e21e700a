import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { getItem } from '../../functions/stores/kernel/get'

/** stores/kernel/get.ts: one item by its key, strongly consistent, abandoned with the signal. */
describe('getItem', () => {
  const clientAnswering = (Item: Record<string, unknown> | undefined) => {
    const sent: { input: unknown; options: unknown }[] = []
    const client = {
      send: async (command: { input: unknown }, options: unknown) => {
        sent.push({ input: command.input, options })
        return { Item }
      },
    } as unknown as DynamoDBDocumentClient
    return { client, sent }
  }

  it('reads the key strongly consistent and answers the item', async () => {
    const { client, sent } = clientAnswering({ grantId: 'g1', amount: 5 })
    const signal = new AbortController().signal
    expect(await getItem(client, 'grants', { grantId: 'g1' }, { signal })).toEqual({
      grantId: 'g1',
      amount: 5,
    })
    expect(sent).toEqual([
      {
        input: { TableName: 'grants', Key: { grantId: 'g1' }, ConsistentRead: true },
        options: { abortSignal: signal },
      },
    ])
  })

  it('answers undefined when there is no such item', async () => {
    const { client } = clientAnswering(undefined)
    expect(await getItem(client, 'programs', { programId: 'p1' })).toBeUndefined()
  })
})
