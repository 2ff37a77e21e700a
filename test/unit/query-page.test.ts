import type { QueryCommand } from '@aws-sdk/lib-dynamodb'
import { queryPage } from '../../functions/stores/kernel/query-page'
import type { Send } from '../../functions/stores/paging'

type Key = Record<string, unknown>

/** A Send over a list of pages, recording each Query's Limit and start. */
const pages = (answers: { Items: number[]; LastEvaluatedKey?: Key }[]) => {
  const asked: { Limit?: number; ExclusiveStartKey?: Key }[] = []
  const send = (async (command: QueryCommand) => {
    const { Limit, ExclusiveStartKey } = command.input
    asked.push({ Limit, ExclusiveStartKey })
    return answers.shift()
  }) as unknown as Send
  return { send, asked }
}

/** stores/kernel/query-page.ts: one page of a query, one item more read to know a next exists. */
describe('queryPage', () => {
  it('asks for one more than the page and answers no last when the query ends', async () => {
    const { send, asked } = pages([{ Items: [1, 2] }])
    expect(await queryPage(send, { TableName: 't' }, 2)).toEqual({ items: [1, 2] })
    expect(asked).toEqual([{ Limit: 3, ExclusiveStartKey: undefined }])
  })

  it('answers the last shown item when another page exists', async () => {
    const { send } = pages([{ Items: [1, 2, 3], LastEvaluatedKey: { k: 3 } }])
    expect(await queryPage(send, { TableName: 't' }, 2)).toEqual({ items: [1, 2], last: 2 })
  })

  it('reads on from where a short page stopped, asking only for what is missing', async () => {
    const { send, asked } = pages([
      { Items: [1], LastEvaluatedKey: { k: 1 } },
      { Items: [2, 3, 4], LastEvaluatedKey: { k: 4 } },
    ])
    const start = { k: 0 }
    expect(await queryPage(send, { TableName: 't', ExclusiveStartKey: start }, 3)).toEqual({
      items: [1, 2, 3],
      last: 3,
    })
    expect(asked).toEqual([
      { Limit: 4, ExclusiveStartKey: start },
      { Limit: 3, ExclusiveStartKey: { k: 1 } },
    ])
  })

  it('answers no last when the query ends exactly at the page', async () => {
    const { send } = pages([{ Items: [1], LastEvaluatedKey: { k: 1 } }, { Items: [2] }])
    expect(await queryPage(send, { TableName: 't' }, 2)).toEqual({ items: [1, 2] })
  })
})
