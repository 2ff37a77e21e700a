import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb'
import type { ProgramRecord } from '../domain/program'
import type { CallOptions } from './members.store'
import type { OfferPreviewReader, OfferPreviewSources } from './offer-preview.store'

/** Two GetItems side by side, eventually consistent: the preview writes nothing and shows no counter. */
export class DynamoDbOfferPreviewReader implements OfferPreviewReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: { programs: string; issuers: string },
  ) {}

  async sources(
    { programId, issuerId }: { programId: string; issuerId: string },
    { signal }: CallOptions = {},
  ): Promise<OfferPreviewSources> {
    const options = { abortSignal: signal }
    const [{ Item: program }, { Item: issuer }] = await Promise.all([
      this.client.send(
        new GetCommand({ TableName: this.tables.programs, Key: { programId } }),
        options,
      ) as Promise<{ Item?: ProgramRecord }>,
      this.client.send(
        new GetCommand({
          TableName: this.tables.issuers,
          Key: { issuerId },
          ProjectionExpression: '#name',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
        options,
      ) as Promise<{ Item?: { name?: string } }>,
    ])
    return {
      ...(program === undefined ? {} : { program }),
      ...(issuer?.name === undefined ? {} : { issuerName: issuer.name }),
    }
  }
}
