import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { type DynamoDBDocumentClient, GetCommand, TransactGetCommand } from '@aws-sdk/lib-dynamodb'
import type { Runtime } from '../composition'
import { queueOf } from '../composition'
import { WEBHOOKS_QUEUE } from '../consumers'
import {
  makeWebhookSender,
  type PoolSnapshot,
  type WebhookSenderDeps,
} from '../core/webhook-sender'
import type { ProgramRecord } from '../domain/program'
import { poolRemaining, type ShardRecord, shardKeys } from '../domain/program-shards'
import { lazyMailer, type Mailer } from '../mail/mailer'
import { webhookDisabledMail } from '../mail/webhook-disabled-mail'
import { logger } from '../runtime/logger'
import type { QueueSender } from '../runtime/queue-sender'
import { retrying } from '../runtime/retry'
import * as RETRY from '../runtime/retry-policies'
import { makeWebhookHttp, type Resolver, type WebhookHttp } from '../runtime/safe-http'
import { type SecretBox, secretBoxFrom } from '../runtime/secret-box'
import { DynamoDbMembersStore } from '../stores/members.dynamodb'
import { DynamoDbWebhookStore } from '../stores/webhooks.dynamodb'

/**
 * A program's pool for the pool-low check, or undefined when it has no pool or no
 * `poolLowThreshold`: the head (one consistent GetItem: threshold, pool, shard count), then, for a
 * sharded program, the head and every shard in one TransactGetItems, a snapshot (shards read one
 * by one could mix a grant's before and after). A program has at most MAX_SHARDS (96) shards, so
 * head and shards fit one call (100 items).
 */
export const programPool =
  (client: DynamoDBDocumentClient, table: string) =>
  async (programId: string): Promise<PoolSnapshot | undefined> => {
    const { Item } = await client.send(
      new GetCommand({ TableName: table, Key: { programId }, ConsistentRead: true }),
    )
    const head = Item as (ProgramRecord & { poolLowThreshold?: number }) | undefined
    if (head === undefined || head.pool === undefined) return undefined
    if (typeof head.poolLowThreshold !== 'number') return undefined
    let snapshot: ProgramRecord & { poolLowThreshold?: number } = head
    let shards: ShardRecord[] = []
    if (head.shards !== undefined && head.shards > 0) {
      const keys = [{ programId }, ...shardKeys(programId, head.shards)]
      // A grant's transaction in flight on one of these items cancels the read (DynamoDB, not
      // DynamoDB Local): read again a few times, then let the message come back.
      const { Responses = [] } = await retrying(
        () =>
          client.send(
            new TransactGetCommand({
              TransactItems: keys.map((Key) => ({ Get: { TableName: table, Key } })),
            }),
          ),
        {
          backoff: RETRY.poolSnapshot,
          again: (error) => error instanceof TransactionCanceledException,
        },
      )
      const [first, ...rest] = Responses.map((r) => r.Item)
      if (first === undefined) return undefined
      snapshot = first as typeof head
      shards = rest.filter((s): s is ShardRecord => s !== undefined)
    }
    if (snapshot.pool === undefined || typeof snapshot.poolLowThreshold !== 'number') {
      return undefined
    }
    // pool = head.issued + Σ shard.issued + Σ shard.remaining (domain/program-shards.ts).
    const issued = (snapshot.issued ?? 0) + shards.reduce((sum, shard) => sum + shard.issued, 0)
    return {
      issuerId: snapshot.issuerId,
      mode: snapshot.mode,
      pool: snapshot.pool,
      remaining: poolRemaining(snapshot.pool, issued) ?? 0,
      threshold: snapshot.poolLowThreshold,
    }
  }

export type WebhookSenderOverrides = {
  /** Tests: a client of their own (a receiver's self-signed CA, an injected resolver). */
  http?: WebhookHttp
  /** Tests: the resolver of the default client (private addresses refused unless loopback is allowed). */
  resolve?: Resolver
  mailer?: Mailer
  secretBox?: SecretBox
  /** The Webhooks queue's sender; default: the runtime's (queueOf). */
  queue?: QueueSender
} & Pick<WebhookSenderDeps, 'realNow' | 'random' | 'endpointsTtlMs'>

/**
 * The WebhookSender consumer (functions/consumers.ts) over a runtime: its Lambda entry
 * (handlers/webhook-sender.handler.ts) builds it once per process; npm start and the tests plug
 * the same into the local Webhooks queue (local/consumer-factories.ts). The schedule runs on the
 * runtime's clock (tests move it); each attempt's `webhook-timestamp` is the real time. Reads
 * nothing at import.
 */
export const makeWebhookSenderHandler = (
  runtime: Runtime,
  overrides: WebhookSenderOverrides = {},
) => {
  const { documentClient, config } = runtime
  const store = new DynamoDbWebhookStore(documentClient, config.tables)
  const members = new DynamoDbMembersStore(documentClient, config.tables)
  const box = overrides.secretBox ?? secretBoxFrom(config.webhooks)
  const mailer =
    overrides.mailer === undefined ? lazyMailer(config.mail) : () => overrides.mailer as Mailer
  const http =
    overrides.http ??
    makeWebhookHttp({
      allowLoopback: config.webhooks.allowLoopback,
      ...(overrides.resolve === undefined ? {} : { resolve: overrides.resolve }),
    })
  return makeWebhookSender({
    store,
    queue: overrides.queue ?? queueOf(runtime, WEBHOOKS_QUEUE.id),
    http,
    openSecret: (sealed, endpointId) => box.open(sealed, { endpointId }),
    poolOf: programPool(documentClient, config.tables.programs),
    notifyDisabled: async (endpoint) => {
      const owners = (await members.list(endpoint.issuerId)).filter((m) => m.role === 'owner')
      for (const owner of owners) {
        const outcome = await mailer().send(
          webhookDisabledMail(owner.email, endpoint, config.mail.consoleUrl),
        )
        if (outcome === 'no_sender') {
          logger.info('webhook endpoint disabled: this stage has no mail sender, nobody e-mailed', {
            endpointId: endpoint.endpointId,
          })
          return
        }
      }
    },
    clock: () => runtime.clock.now(),
    monotonic: () => runtime.monotonic.now(),
    ...(overrides.realNow === undefined ? {} : { realNow: overrides.realNow }),
    ...(overrides.random === undefined ? {} : { random: overrides.random }),
    ...(overrides.endpointsTtlMs === undefined ? {} : { endpointsTtlMs: overrides.endpointsTtlMs }),
  })
}
