import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { GrantCursor } from '../domain/grant'
import type { ProgramRecord, ProgramStatus } from '../domain/program'
import type { AdminStore } from './admin.store'
import type { AdminStoreOptions } from './admin-writes.dynamodb'
import { DynamoDbApiKeyStore } from './api-keys.dynamodb'
import type { AdminKeyRecord, KeyLimitChange } from './api-keys.store'
import { DynamoDbAuditLog } from './audit.dynamodb'
import type { AdminTableNames, ChangeOptions, IssuerModeFilter } from './changes.store'
import { DynamoDbIssuerStore } from './issuers.dynamodb'
import type { IssuerRecord } from './issuers.store'
import { DynamoDbGrantSlotBackfill } from './migrations/grant-slots.dynamodb'
import { DynamoDbProgramGrantPages } from './program-grants.dynamodb'
import { DynamoDbProgramStore } from './programs.dynamodb'
import type { OfferSettingsChange } from './programs.store'

export {
  type AdminStoreOptions,
  type ConflictRetry,
  DEFAULT_CONFLICT_RETRY,
  isTransactionConflict,
  REQUEST_CONFLICT_RETRY,
} from './admin-writes.dynamodb'

/**
 * The admin stores as one AdminStore, so that a door (the CLI, a management route, the local
 * seed, the bench) builds one object: each call goes to its aggregate's store (issuers.dynamodb.ts,
 * programs.dynamodb.ts, api-keys.dynamodb.ts, program-grants.dynamodb.ts, audit.dynamodb.ts,
 * migrations/grant-slots.dynamodb.ts). No logic of its own.
 */
export class DynamoDbAdminStore implements AdminStore {
  readonly issuers: DynamoDbIssuerStore
  readonly programs: DynamoDbProgramStore
  readonly keys: DynamoDbApiKeyStore
  readonly grants: DynamoDbProgramGrantPages
  readonly audit: DynamoDbAuditLog
  readonly migration: DynamoDbGrantSlotBackfill

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: AdminTableNames,
    private readonly options: AdminStoreOptions = {},
  ) {
    this.issuers = new DynamoDbIssuerStore(client, tables, options)
    this.programs = new DynamoDbProgramStore(client, tables, options)
    this.keys = new DynamoDbApiKeyStore(client, tables, options)
    this.grants = new DynamoDbProgramGrantPages(client, tables, options)
    this.audit = new DynamoDbAuditLog(client, tables, options)
    this.migration = new DynamoDbGrantSlotBackfill(client, tables, options)
  }

  withSignal(signal: AbortSignal | undefined): DynamoDbAdminStore {
    return new DynamoDbAdminStore(this.client, this.tables, { ...this.options, signal })
  }

  createIssuer(issuer: IssuerRecord, options?: ChangeOptions) {
    return this.issuers.createIssuer(issuer, options)
  }
  listIssuers() {
    return this.issuers.listIssuers()
  }
  issuerNames(issuerIds: string[]) {
    return this.issuers.issuerNames(issuerIds)
  }

  createProgram(program: ProgramRecord, options?: ChangeOptions) {
    return this.programs.createProgram(program, options)
  }
  getProgram(programId: string) {
    return this.programs.getProgram(programId)
  }
  listPrograms(filter: IssuerModeFilter) {
    return this.programs.listPrograms(filter)
  }
  setProgramStatus(
    programId: string,
    to: ProgramStatus,
    from: ProgramStatus[],
    options?: ChangeOptions,
  ) {
    return this.programs.setProgramStatus(programId, to, from, options)
  }
  setOfferSettings(programId: string, input: OfferSettingsChange, options?: ChangeOptions) {
    return this.programs.setOfferSettings(programId, input, options)
  }

  listGrants(input: {
    programId: string
    recipientEmail?: string
    limit: number
    after?: GrantCursor
  }) {
    return this.grants.listGrants(input)
  }

  createApiKey(key: AdminKeyRecord, options?: ChangeOptions) {
    return this.keys.createApiKey(key, options)
  }
  findApiKeyById(keyId: string) {
    return this.keys.findApiKeyById(keyId)
  }
  listApiKeys(filter: IssuerModeFilter) {
    return this.keys.listApiKeys(filter)
  }
  revokeApiKey(keyHash: string, options?: ChangeOptions) {
    return this.keys.revokeApiKey(keyHash, options)
  }
  rollApiKey(input: Parameters<DynamoDbApiKeyStore['rollApiKey']>[0], options?: ChangeOptions) {
    return this.keys.rollApiKey(input, options)
  }
  setApiKeyRateLimit(change: KeyLimitChange, options?: ChangeOptions) {
    return this.keys.setApiKeyRateLimit(change, options)
  }

  listAudit(input: { issuerId: string; limit: number; after?: string }) {
    return this.audit.listAudit(input)
  }

  backfillGrantSlots() {
    return this.migration.backfillGrantSlots()
  }
}
