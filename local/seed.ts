import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { makeAdmin } from '../functions/core/admin'
import { DynamoDbAdminStore } from '../functions/stores/admin.dynamodb'
import type { AdminTableNames } from '../functions/stores/admin.store'

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
  tables: AdminTableNames,
  baseUrl: string,
): Promise<Seed> => {
  const admin = makeAdmin(new DynamoDbAdminStore(client, tables))
  const { issuerId } = await admin.createIssuer({ name: 'Demo issuer' })
  const pool = '1000000'
  const [testProgram, liveProgram, testKey, liveKey] = await Promise.all([
    admin.createProgram({ issuer: issuerId, mode: 'TEST', name: 'Demo TEST program', pool }),
    admin.createProgram({ issuer: issuerId, mode: 'LIVE', name: 'Demo LIVE program', pool }),
    admin.createKey({ issuer: issuerId, mode: 'TEST' }),
    admin.createKey({ issuer: issuerId, mode: 'LIVE' }),
  ])
  return {
    baseUrl,
    issuerId,
    programs: { TEST: testProgram.programId, LIVE: liveProgram.programId },
    keys: { TEST: testKey.secret, LIVE: liveKey.secret },
  }
}
