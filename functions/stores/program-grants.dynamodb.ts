import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'
import { QueryCommand } from '@aws-sdk/lib-dynamodb'
import type { GrantCursor, GrantRecord } from '../domain/grant'
import { INDEX } from '../table-schema'
import { type AdminStoreOptions, DynamoDbAdminBase, missingIndex } from './admin-writes.dynamodb'
import type { AdminTableNames, Page } from './changes.store'
import { GrantLister } from './grant-listing.dynamodb'
import type { ProgramGrantPages } from './programs.store'

/** A program's grants for the operator, from the index the stage's own listings read. */
export class DynamoDbProgramGrantPages extends DynamoDbAdminBase implements ProgramGrantPages {
  private readonly lister: GrantLister

  constructor(
    client: DynamoDBDocumentClient,
    tables: AdminTableNames,
    options: AdminStoreOptions = {},
  ) {
    super(client, tables, options)
    this.lister = new GrantLister(
      tables.grants,
      options.grantListIndex ?? INDEX.grantsByProgramSlot,
    )
  }

  /**
   * Newest first, from every slot of the program (grant-listing.dynamodb.ts), reading until the
   * page is full (a recipient filter applies after DynamoDB's page limit). The next cursor is the
   * grant API's: the last grant's createdAt and id.
   */
  listGrants({
    programId,
    recipientEmail,
    limit,
    after,
  }: {
    programId: string
    recipientEmail?: string
    limit: number
    after?: GrantCursor
  }): Promise<Page<GrantRecord>> {
    return this.lister
      .list((input) => this.send(new QueryCommand(input)), {
        programId,
        recipientEmail,
        limit,
        after,
        maxReads: Number.POSITIVE_INFINITY,
      })
      .catch(missingIndex(this.tables.grants, INDEX.grantsByProgramSlot))
  }
}
