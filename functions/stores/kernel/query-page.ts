import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb'
import type { Send } from '../paging'

/**
 * One page of a query: up to `limit` items from `input.ExclusiveStartKey`, reading on while
 * DynamoDB stops short (its 1 MB page). It asks for one item more than the page, so `last` (the
 * page's last item) is set only when another page exists: a page that ends exactly at the end has
 * no next.
 */
export const queryPage = async <T>(
  send: Send,
  input: QueryCommandInput,
  limit: number,
): Promise<{ items: T[]; last?: T }> => {
  const items: T[] = []
  let start = input.ExclusiveStartKey
  do {
    const page = await send<{ Items?: T[]; LastEvaluatedKey?: Record<string, unknown> }>(
      new QueryCommand({ ...input, Limit: limit + 1 - items.length, ExclusiveStartKey: start }),
    )
    items.push(...(page.Items ?? []))
    start = page.LastEvaluatedKey
  } while (start !== undefined && items.length <= limit)
  if (items.length <= limit) return { items }
  const shown = items.slice(0, limit)
  return { items: shown, last: shown.at(-1) as T }
}
