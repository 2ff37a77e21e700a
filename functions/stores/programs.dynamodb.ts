import { GetCommand } from '@aws-sdk/lib-dynamodb'
import type { ProgramRecord, ProgramStatus } from '../domain/program'
import {
  isSubItemKey,
  newShards,
  type ShardRecord,
  shardKeys,
  sumShards,
  type TermsRecord,
  termsKey,
} from '../domain/program-shards'
import { INDEX } from '../table-schema'
import { DynamoDbAdminBase, itemOf } from './admin-writes.dynamodb'
import type { ChangeOptions, IssuerModeFilter } from './changes.store'
import { issuerItems, issuerUpdate } from './issuer-items.dynamodb'
import { batchGetAll } from './kernel/batch'
import type { CancellationReason } from './kernel/dynamodb-errors'
import { scanAll } from './paging'
import type { OfferSettingsChange, ProgramChange, ProgramStore } from './programs.store'

/** The programs table: program heads and their counter shards (program-shards.ts). */
export class DynamoDbProgramStore extends DynamoDbAdminBase implements ProgramStore {
  /** The head and, for a program with `shards`, its shards with the pool's slices. */
  createProgram(program: ProgramRecord, options?: ChangeOptions) {
    const shards =
      program.shards === undefined ? [] : newShards(program.programId, program.shards, program.pool)
    return this.putForIssuer(
      program.issuerId,
      [
        { table: this.tables.programs, item: program, key: 'programId' },
        ...shards.map((item) => ({ table: this.tables.programs, item, key: 'programId' })),
      ],
      options,
    )
  }

  async getProgram(programId: string): Promise<ProgramRecord | undefined> {
    if (isSubItemKey(programId)) return undefined
    const { Item } = await this.send<{ Item?: ProgramRecord }>(
      new GetCommand({ TableName: this.tables.programs, Key: { programId }, ConsistentRead: true }),
    )
    if (Item === undefined) return undefined
    const [program] = await this.withShards([Item])
    return program && (await this.withTermsText(program))
  }

  /** The head's terms with their text, read from the terms item (only the management reads need it). */
  private async withTermsText(program: ProgramRecord): Promise<ProgramRecord> {
    if (!program.terms?.hasText) return program
    const { Item } = await this.send<{ Item?: TermsRecord }>(
      new GetCommand({
        TableName: this.tables.programs,
        Key: { programId: termsKey(program.programId) },
        ConsistentRead: true,
      }),
    )
    const { hasText: _, ...terms } = program.terms
    return { ...program, terms: { ...terms, ...(Item ? { text: Item.text } : {}) } }
  }

  /**
   * Programs with `issued` and `remaining` summed over their shards: one consistent BatchGetItem
   * per 100 shards. A program without shards is its own counter.
   */
  private async withShards(heads: ProgramRecord[]): Promise<ProgramRecord[]> {
    const keys = heads.flatMap((head) => shardKeys(head.programId, head.shards ?? 0))
    if (keys.length === 0) return heads
    const shards = await batchGetAll<ShardRecord>(
      this.client,
      this.tables.programs,
      keys,
      this.pacing(),
    )
    const byProgram = new Map<string, ShardRecord[]>()
    for (const shard of shards) {
      byProgram.set(shard.shardOf, [...(byProgram.get(shard.shardOf) ?? []), shard])
    }
    return heads.map((head) => {
      if (head.shards === undefined) return head
      const { remaining: _, ...rest } = head
      return sumShards(rest, byProgram.get(head.programId) ?? [])
    })
  }

  /**
   * By issuer: the index holds only the keys and the mode (never written by a grant), so it finds
   * the programs and filters the mode; their counters and status come from one consistent
   * BatchGetItem per 100 programs.
   */
  async listPrograms(filter: IssuerModeFilter): Promise<ProgramRecord[]> {
    const byMode = filter.mode === undefined ? {} : { ':mode': filter.mode }
    const modeFilter =
      filter.mode === undefined
        ? {}
        : { FilterExpression: '#mode = :mode', ExpressionAttributeNames: { '#mode': 'mode' } }
    const heads =
      filter.issuerId === undefined
        ? // A scan also meets the shard items (they have no issuer): keep the heads only.
          (
            await scanAll<ProgramRecord>(this.send, {
              TableName: this.tables.programs,
              ConsistentRead: true,
              ...modeFilter,
              ...(filter.mode === undefined ? {} : { ExpressionAttributeValues: byMode }),
            })
          ).filter((item) => !isSubItemKey(item.programId))
        : await issuerItems<ProgramRecord>(this.client, this.send, this.pacing(), {
            table: this.tables.programs,
            index: INDEX.programsByIssuer,
            key: 'programId',
            issuerId: filter.issuerId,
            query: { ...modeFilter, ExpressionAttributeValues: byMode },
          })
    const programs = await this.withShards(heads)
    return programs.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  async setProgramStatus(
    programId: string,
    to: ProgramStatus,
    from: ProgramStatus[],
    options?: ChangeOptions,
  ): Promise<ProgramChange> {
    const values = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]))
    const issuer = options?.issuerId
    const refused = await this.transact(
      [
        issuerUpdate(issuer, {
          TableName: this.tables.programs,
          Key: { programId },
          UpdateExpression: 'SET #status = :to',
          ConditionExpression: `attribute_exists(programId) AND #status IN (${Object.keys(values).join(', ')})`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':to': to, ...values },
        }),
      ],
      options,
    )
    return changeOf(refused, issuer)
  }

  async setOfferSettings(
    programId: string,
    input: OfferSettingsChange,
    options?: ChangeOptions,
  ): Promise<ProgramChange> {
    const issuer = options?.issuerId
    const names: Record<string, string> = {
      '#terms': 'terms',
      ...(input.termsVersion === undefined ? {} : { '#version': 'version' }),
    }
    const values: Record<string, unknown> = {}
    const sets: string[] = []
    // The text goes to its own item: the head (read by the grant path) keeps `hasText`.
    const text = input.set.terms?.text
    const headSet =
      input.set.terms === undefined
        ? input.set
        : {
            ...input.set,
            terms:
              text === undefined
                ? { version: input.set.terms.version, url: input.set.terms.url }
                : { version: input.set.terms.version, hasText: true as const },
          }
    for (const [field, value] of Object.entries(headSet)) {
      names[`#${field}`] = field
      values[`:${field}`] = value
      sets.push(`#${field} = :${field}`)
    }
    for (const field of input.remove) names[`#${field}`] = field
    const update = [
      sets.length > 0 ? `SET ${sets.join(', ')}` : '',
      input.remove.length > 0 ? `REMOVE ${input.remove.map((f) => `#${f}`).join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ')
    if (input.termsVersion !== undefined) values[':termsVersion'] = input.termsVersion
    const refused = await this.transact(
      [
        issuerUpdate(issuer, {
          TableName: this.tables.programs,
          Key: { programId },
          UpdateExpression: update,
          ConditionExpression: `attribute_exists(programId) AND ${
            input.termsVersion === undefined
              ? 'attribute_not_exists(#terms)'
              : '#terms.#version = :termsVersion'
          }`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
        ...(input.set.terms === undefined
          ? []
          : text === undefined
            ? [
                {
                  Delete: {
                    TableName: this.tables.programs,
                    Key: { programId: termsKey(programId) },
                  },
                },
              ]
            : [
                {
                  Put: {
                    TableName: this.tables.programs,
                    Item: {
                      programId: termsKey(programId),
                      termsOf: programId,
                      version: input.set.terms.version,
                      text,
                    } satisfies TermsRecord,
                  },
                },
              ]),
      ],
      options,
    )
    return changeOf(refused, issuer)
  }
}

/**
 * How a conditional change of a program's head ended, from the transaction's refusal: another
 * issuer's program is not found, as is a missing one.
 */
const changeOf = (
  refused: CancellationReason[] | undefined,
  issuer: string | undefined,
): ProgramChange => {
  if (!refused) return { kind: 'changed' }
  const current = itemOf<ProgramRecord>(refused[0])
  if (!current || (issuer !== undefined && current.issuerId !== issuer)) {
    return { kind: 'not_found' }
  }
  return { kind: 'refused', current }
}
