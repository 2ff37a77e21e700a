import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import type { GrantRecord } from '../domain/grant'
import { OPEN_STATES } from '../domain/grant-lifecycle'
import type { ProgramRecord } from '../domain/program'
import { type TermsRecord, termsKey } from '../domain/program-shards'
import type { RetryDeps } from '../runtime/retry'
import { INDEX } from '../table-schema'
import type { OfferTokenRecord, RecipientScope } from './grant-life.store'
import type { CallOptions } from './grants.store'
import { batchGetByKey } from './kernel/batch'
import { getItem } from './kernel/get'
import { queryAll, sendWith } from './paging'

export type GrantLifeTables = { programs: string; grants: string; audit?: string }

/** The key prefix of an offer link's token item, in the grants table. */
export const TOKEN_PREFIX = 'offer-token#'

/**
 * The reads of a grant's life (stores/grant-life.store.ts), strongly consistent: grants, program
 * heads and terms, a recipient's grants, an offer link's token. The writes: grant-life.dynamodb.ts.
 */
export class DynamoDbGrantLifeReads {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tables: GrantLifeTables,
    /** The waits between retries; tests and the contention model inject theirs. */
    protected readonly retry: Pick<RetryDeps, 'sleep' | 'random'> = {},
  ) {}

  async findGrant(grantId: string, options: CallOptions = {}) {
    return (await getItem(this.client, this.tables.grants, { grantId }, options)) as
      | GrantRecord
      | undefined
  }

  async findProgramHead(programId: string, options: CallOptions = {}) {
    return (await getItem(this.client, this.tables.programs, { programId }, options)) as
      | ProgramRecord
      | undefined
  }

  async findGrants(grantIds: readonly string[], options: CallOptions = {}) {
    return (await batchGetByKey(
      this.client,
      this.tables.grants,
      'grantId',
      grantIds,
      options,
    )) as GrantRecord[]
  }

  async findProgramHeads(programIds: readonly string[], options: CallOptions = {}) {
    return (await batchGetByKey(this.client, this.tables.programs, 'programId', programIds, {
      ...options,
      sleep: this.retry.sleep,
    })) as ProgramRecord[]
  }

  async findTermsTexts(programIds: readonly string[], options: CallOptions = {}) {
    return (await batchGetByKey(
      this.client,
      this.tables.programs,
      'programId',
      programIds.map(termsKey),
      { ...options, sleep: this.retry.sleep },
    )) as TermsRecord[]
  }

  async grantsOfRecipient(email: string, scope: RecipientScope = {}, { signal }: CallOptions = {}) {
    // Every page, however many: a cut at the newest N would let anyone who grants to the address
    // push a recipient's older offers out of reach. The index holds program, issuer, mode and
    // state (table-schema.ts), so the filter leaves out the rest before they are read again.
    const filters: string[] = []
    const names: Record<string, string> = { '#r': 'recipientKey' }
    const values: Record<string, unknown> = { ':r': email }
    const equal = (name: string, value: string | undefined) => {
      if (value === undefined) return
      names[`#${name}`] = name
      values[`:${name}`] = value
      filters.push(`#${name} = :${name}`)
    }
    equal('issuerId', scope.issuerId)
    equal('mode', scope.mode)
    equal('programId', scope.programId)
    if (scope.open) {
      names['#status'] = 'status'
      OPEN_STATES.forEach((state, i) => {
        values[`:open${i}`] = state
      })
      filters.push(`#status IN (${OPEN_STATES.map((_, i) => `:open${i}`).join(', ')})`)
    }
    const items = await queryAll<{ grantId: string }>(sendWith(this.client, signal), {
      TableName: this.tables.grants,
      IndexName: INDEX.grantsByRecipient,
      KeyConditionExpression: '#r = :r',
      ...(filters.length === 0 ? {} : { FilterExpression: filters.join(' AND ') }),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
    })
    return this.reread(
      items.map((item) => item.grantId),
      (grant) =>
        grant.recipientKey === email &&
        (scope.issuerId === undefined || grant.issuerId === scope.issuerId) &&
        (scope.mode === undefined || grant.mode === scope.mode) &&
        (scope.programId === undefined || grant.programId === scope.programId) &&
        (!scope.open || OPEN_STATES.includes(grant.status)),
      signal,
    )
  }

  /**
   * The grants an index named, re-read strongly consistent (the index may lag) in the index's
   * order, keeping those that still `match` (a grant whose address changed since is dropped).
   */
  private async reread(
    ids: string[],
    match: (grant: GrantRecord) => boolean,
    signal: AbortSignal | undefined,
  ) {
    const order = new Map(ids.map((id, i) => [id, i]))
    return (await this.findGrants(ids, { signal }))
      .filter(match)
      .sort((a, b) => (order.get(a.grantId) ?? 0) - (order.get(b.grantId) ?? 0))
  }

  async findOfferToken(hash: string, options: CallOptions = {}) {
    const key = { grantId: `${TOKEN_PREFIX}${hash}` }
    return (await getItem(this.client, this.tables.grants, key, options)) as
      | OfferTokenRecord
      | undefined
  }
}
