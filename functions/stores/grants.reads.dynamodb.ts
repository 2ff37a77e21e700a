import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb'
import type { ApiKeyRecord } from '../domain/api-key'
import type { ProgramRecord } from '../domain/program'
import { programRefusal } from '../domain/program'
import { type GrantListIndex, INDEX } from '../table-schema'
import { GrantLister } from './grant-listing.dynamodb'
import { DynamoDbGrantStore, type TableNames } from './grants.dynamodb'
import type { CallOptions, GrantPage, GrantReads, ListGrantsInput } from './grants.store'

/**
 * The reads of programs and grants for integrators and the management API: the grant path's store
 * and these, kept apart so the grant function's bundle carries no Query.
 */
export class DynamoDbGrantReads extends DynamoDbGrantStore implements GrantReads {
  private readonly lister: GrantLister

  /** `listIndex`: the index listings read (config GRANTS_LIST_INDEX). */
  constructor(
    client: DynamoDBDocumentClient,
    tables: TableNames,
    listIndex: GrantListIndex = INDEX.grantsByProgramSlot,
  ) {
    super(client, tables)
    this.lister = new GrantLister(tables.grants, listIndex)
  }

  async findProgramWithKey(
    keyHash: string,
    programId: string,
    { totals = true, ...options }: CallOptions & { totals?: boolean } = {},
  ): Promise<{ key: ApiKeyRecord | undefined; program: ProgramRecord | undefined }> {
    const [key, head] = await this.keyAnd<ProgramRecord>(
      keyHash,
      this.tables.programs,
      { programId },
      options,
    )
    // Its shards only when asked, for a program the key may read (a second round trip).
    const visible =
      totals && head !== undefined && key !== undefined && !programRefusal(head, key, 'read')
    return { key, program: visible ? await this.withShards(head, options.signal) : head }
  }

  /**
   * Newest first, from every slot of the program in `byProgramSlot` (or from the legacy
   * `byProgram` while the stage still has it): grant-listing.dynamodb.ts. With a recipient or
   * status filter, DynamoDB reads and drops the program's other grants: at most `maxReads` rounds of
   * reading (about 1 MB of grants each) are made, and the page may come back short with a cursor.
   */
  async listGrants({
    programId,
    recipientEmail,
    status,
    limit,
    after,
    maxReads = 8,
    signal,
  }: ListGrantsInput): Promise<GrantPage> {
    return this.lister.list(
      (input) => this.client.send(new QueryCommand(input), { abortSignal: signal }),
      { programId, recipientEmail, status, limit, after, maxReads },
    )
  }
}
