import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { AdminStore } from '../functions/admin/admin.store'
import { newId } from '../functions/shared/ids'
import type { TableNames } from '../functions/stores/grants.dynamodb'

/** The shape of `.local/seed.json`, which tests and tools read to find a working key. */
export type Seed = {
  baseUrl: string
  issuerId: string
  programs: { TEST: string; LIVE: string }
  keys: { TEST: string; LIVE: string }
}

/** One issuer with a TEST and a LIVE program (pool 1,000,000 each) and a key per mode. */
export const seed = async (
  client: DynamoDBDocumentClient,
  tables: TableNames,
  baseUrl: string,
): Promise<Seed> => {
  const admin = new AdminStore(client, tables)
  const issuerId = newId('issuer')
  const [testProgram, liveProgram, testKey, liveKey] = await Promise.all([
    admin.createProgram({ issuerId, mode: 'TEST', name: 'Demo TEST program', pool: 1_000_000 }),
    admin.createProgram({ issuerId, mode: 'LIVE', name: 'Demo LIVE program', pool: 1_000_000 }),
    admin.createApiKey({ issuerId, mode: 'TEST' }),
    admin.createApiKey({ issuerId, mode: 'LIVE' }),
  ])
  return {
    baseUrl,
    issuerId,
    programs: { TEST: testProgram.programId, LIVE: liveProgram.programId },
    keys: { TEST: testKey.secret, LIVE: liveKey.secret },
  }
}
