import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb'
import { ScanCommand } from '@aws-sdk/lib-dynamodb'
import { marshall } from '@aws-sdk/util-dynamodb'
import { makeAdmin } from '../../functions/core/admin'
import type { ApiKeyRecord, Mode } from '../../functions/domain/api-key'
import { generateApiKey, hashApiKey, maskApiKey } from '../../functions/domain/api-key'
import { newId } from '../../functions/domain/ids'
import type { Deadline } from '../../functions/runtime/deadline'
import { DynamoDbAdminStore } from '../../functions/stores/admin.dynamodb'
import { createDocumentClient } from '../../functions/stores/dynamodb-client'
import type { TableKey } from '../../functions/table-schema'
import {
  attachContentionModel,
  MODEL_DEFAULTS,
  type ModelClock,
  type ModelParams,
} from './dynamodb-model'

/**
 * What every run of the contention model sets up the same way (hot-program.ts, offer-expiry.ts,
 * batch-rows.ts): the modelled client over DynamoDB Local, a plain one for set-up and for reading
 * the outcome outside the model, an issuer with a key, and the helpers to read a run's exactness.
 */

/**
 * The client the code under test uses, with the model attached, and a plain one for set-up and
 * checks. Not the service's 1-second timeouts: DynamoDB Local, serving many clients one
 * transaction at a time, is slow on the wall clock, which the model's virtual clock does not see.
 */
export const openModel = ({
  endpoint,
  tables,
  time,
  params = MODEL_DEFAULTS,
  random,
}: {
  endpoint: string
  tables: Record<TableKey, string>
  time: ModelClock
  params?: ModelParams | undefined
  random: () => number
}) => {
  const raw = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 3,
  })
  const stats = attachContentionModel(raw, { time, tables, params, random })
  // The checks read whole tables (a 50,000-row batch's grants): no 1.5 s attempt timeout here.
  const setupClient = createDocumentClient(
    new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  )
  return {
    raw,
    stats,
    /** The document client over the modelled one: what the code under test gets. */
    client: createDocumentClient(raw),
    /** Outside the model: set-up and exactness checks. */
    setupClient,
    admin: makeAdmin(new DynamoDbAdminStore(setupClient, tables)),
    /** The set-up's calls are not the run's: counts start from here. */
    resetCalls: () => {
      for (const k of Object.keys(stats.calls)) delete stats.calls[k]
    },
  }
}

/** An issuer and an active API key of `mode` (its secret, for the grant API). */
export const createIssuerWithKey = async (
  model: ReturnType<typeof openModel>,
  tables: Record<TableKey, string>,
  { name, mode }: { name: string; mode: Mode },
) => {
  const { issuerId } = await model.admin.createIssuer({ name })
  const secret = generateApiKey(mode)
  const key: ApiKeyRecord = {
    keyHash: hashApiKey(secret),
    keyId: newId('apiKey'),
    issuerId,
    mode,
    status: 'active',
    createdAt: new Date().toISOString(),
    ...maskApiKey(secret),
  }
  await model.raw.send(new PutItemCommand({ TableName: tables.apiKeys, Item: marshall(key) }))
  return { issuerId, secret }
}

/** The function's budget (deadline.ts: 7.5 s of a 10 s function), on the virtual clock. */
export const virtualDeadline = (time: ModelClock) => {
  const end = time.now() + 7_500
  return { signal: NEVER, remainingMs: () => Math.max(0, end - time.now()) } as unknown as Deadline
}
const NEVER = new AbortController().signal

export const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number)

/** A program's grant items and the sum of their amounts, read whole outside the model. */
export const countGrants = async (
  client: ReturnType<typeof createDocumentClient>,
  table: string,
  programId: string,
) => {
  let count = 0
  let amount = 0
  let start: Record<string, unknown> | undefined
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'programId = :p',
        ExpressionAttributeValues: { ':p': programId },
        ProjectionExpression: 'amount',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    )
    count += page.Count ?? 0
    for (const item of page.Items ?? []) amount += Number(item.amount)
    start = page.LastEvaluatedKey
  } while (start)
  return { count, amount }
}
