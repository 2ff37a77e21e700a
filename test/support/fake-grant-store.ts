import {
  type ApiKeyRecord,
  generateApiKey,
  hashApiKey,
  type Mode,
  maskApiKey,
} from '../../functions/domain/api-key'
import type { GrantRecord } from '../../functions/domain/grant'
import { newId } from '../../functions/domain/ids'
import type { AuditEntry } from '../../functions/domain/people'
import type { ProgramRecord } from '../../functions/domain/program'
import {
  newShards,
  type ShardRecord,
  shardKey,
  shardKeys,
  sumShards,
} from '../../functions/domain/program-shards'
import type {
  AccessRead,
  CallOptions,
  CreateGrantInput,
  CreateGrantOutcome,
  GrantStore,
} from '../../functions/stores/grants.store'

/** An item of the programs table: a program's head or one of its counter shards. */
type ProgramsItem = ProgramRecord | ShardRecord

type Method = keyof GrantStore

/**
 * GrantStore in memory, for the core's in-process tests: the contract of DynamoDbGrantStore
 * (functions/stores/grants.dynamodb.ts), conditions included, item for item:
 * - the programs table holds heads and shards under their own keys (`shardKey(programId, i)`);
 * - `createGrant` is one transaction: every counter's condition and the grant's
 *   `attribute_not_exists` are checked first, then all of it is written, or none of it; a refusal
 *   is decoded as the DynamoDB store decodes a cancelled transaction (an existing grant first,
 *   then the first counter that said no, with the item as it was);
 * - reads hand out copies, so the core changes the state only through the interface.
 *
 * What DynamoDB Local cannot show (it runs transactions one at a time) is injected:
 * `answerNext(n, outcome)` makes the next n `createGrant` calls answer `outcome` (a
 * `conflict`, a `throttled`) without writing; `failNext(method, error)` makes a method's next call
 * throw; `beforeWrite` runs just before a transaction's conditions are checked (another writer
 * between the core's read and its write).
 *
 * test/reliability/fake-grant-store.test.ts runs the same writes on this and on DynamoDB Local and
 * compares outcomes and items.
 */
export class FakeGrantStore implements GrantStore {
  /** Every call, in order, with what it asked for: what the core asked of the store. */
  readonly calls: { method: Method; detail?: unknown }[] = []
  /** What each createGrant answered, in order (injected answers included). */
  readonly outcomes: CreateGrantOutcome['kind'][] = []
  readonly state = {
    keys: new Map<string, ApiKeyRecord>(),
    programs: new Map<string, ProgramsItem>(),
    grants: new Map<string, GrantRecord>(),
    audit: [] as AuditEntry[],
  }
  /** Runs before each createGrant's conditions are checked (not for injected answers). */
  beforeWrite: ((input: CreateGrantInput) => void) | undefined
  private readonly answers: CreateGrantOutcome[] = []
  private readonly failures = new Map<Method, unknown>()

  // Seeds ------------------------------------------------------------------------------------

  addKey(record: ApiKeyRecord): ApiKeyRecord {
    this.state.keys.set(record.keyHash, structuredClone(record))
    return record
  }

  /**
   * A program as the admin core creates it: with `shards`, a head without counters (`issued: 0`
   * as its base, no `remaining`) and `newShards` holding the pool's slices; without, a head that is
   * its own one counter (a program made before shards: `remaining` is the pool).
   */
  addProgram(
    head: Omit<ProgramRecord, 'programId' | 'issued' | 'createdAt' | 'shards' | 'pool'> &
      Partial<Pick<ProgramRecord, 'programId' | 'issued' | 'createdAt'>>,
    { shards, pool }: { shards?: number; pool?: number } = {},
  ): ProgramRecord {
    const program: ProgramRecord = {
      programId: head.programId ?? newId('program'),
      issued: 0,
      createdAt: '2026-01-01T00:00:00.000Z',
      ...head,
      ...(pool === undefined ? {} : { pool }),
      ...(shards === undefined ? {} : { shards }),
      ...(shards === undefined && pool !== undefined
        ? { remaining: pool - (head.issued ?? 0) }
        : {}),
    }
    this.state.programs.set(program.programId, structuredClone(program))
    if (shards !== undefined) {
      for (const shard of newShards(program.programId, shards, pool)) {
        this.state.programs.set(shard.programId, shard)
      }
    }
    return program
  }

  /** The next `times` createGrant calls answer `outcome` and write nothing. */
  answerNext(times: number, outcome: CreateGrantOutcome) {
    for (let i = 0; i < times; i++) this.answers.push(outcome)
  }

  /** The next call of `method` throws `error` (and writes nothing). */
  failNext(method: Method, error: unknown) {
    this.failures.set(method, error)
  }

  // Views for assertions ---------------------------------------------------------------------

  head(programId: string): ProgramRecord | undefined {
    return structuredClone(this.state.programs.get(programId) as ProgramRecord | undefined)
  }

  /** The program's shard items that exist, in shard order. */
  shards(programId: string): ShardRecord[] {
    const head = this.state.programs.get(programId) as ProgramRecord | undefined
    return shardKeys(programId, head?.shards ?? 0).flatMap(({ programId: key }) => {
      const shard = this.state.programs.get(key)
      return shard === undefined ? [] : [structuredClone(shard as ShardRecord)]
    })
  }

  /** Everything the store holds, to prove that a refusal wrote nothing. */
  snapshot() {
    return structuredClone({
      keys: [...this.state.keys.entries()],
      programs: [...this.state.programs.entries()],
      grants: [...this.state.grants.entries()],
      audit: this.state.audit,
    })
  }

  /** How many calls of `method` were made. */
  count(method: Method) {
    return this.calls.filter((call) => call.method === method).length
  }

  // GrantStore -------------------------------------------------------------------------------

  async findAccess(
    { keyHash, programId }: { keyHash?: string; programId?: string },
    options?: CallOptions,
  ): Promise<AccessRead> {
    await this.enter('findAccess', { keyHash, programId }, options)
    return {
      ...(keyHash === undefined ? {} : { key: this.copy(this.state.keys.get(keyHash)) }),
      ...(programId === undefined ? {} : { program: this.findHead(programId) }),
    }
  }

  async createGrant(input: CreateGrantInput): Promise<CreateGrantOutcome> {
    await this.enter('createGrant', { target: input.target, amount: input.grant.amount }, input)
    const outcome = this.answers.shift() ?? this.transact(input)
    this.outcomes.push(outcome.kind)
    return structuredClone(outcome)
  }

  /** One TransactWriteItems: the counters, the grant and the audit entry, or nothing. */
  private transact(input: CreateGrantInput): CreateGrantOutcome {
    const { grant, target, authority, audit } = input
    this.beforeWrite?.(input)
    const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority

    // The transaction's items in the DynamoDB store's order: the counters, then the grant.
    const counters: { key: string; check: (item: ProgramsItem | undefined) => boolean }[] = []
    const moves: { key: string; move: (item: ProgramsItem) => void }[] = []
    if (target.kind === 'head') {
      counters.push({
        key: grant.programId,
        check: (item) => {
          const head = item as ProgramRecord | undefined
          return (
            head !== undefined &&
            head.issuerId === issuerId &&
            head.mode === mode &&
            head.status === 'active' &&
            head.shards === undefined &&
            (head.pool === undefined ||
              (head.remaining !== undefined && head.remaining >= grant.amount))
          )
        },
      })
      moves.push({
        key: grant.programId,
        // SET issued = if_not_exists(issued, 0) + amount ADD remaining -amount: the ADD makes a
        // `remaining` even on a program without a pool, as DynamoDB does (nothing reads it there).
        move: (item) => {
          const head = item as ProgramRecord
          head.issued = (head.issued ?? 0) + grant.amount
          head.remaining = (head.remaining ?? 0) - grant.amount
        },
      })
    } else {
      const takes =
        target.kind === 'spread'
          ? target.takes.map(({ shard, take }) => ({ shard, take, limited: true }))
          : [{ shard: target.shard, take: grant.amount, limited: target.limited }]
      const keys = takes.map(({ shard }) => shardKey(grant.programId, shard))
      // DynamoDB refuses a transaction that names one item twice (a ValidationException).
      if (new Set(keys).size !== keys.length) {
        throw new Error(`createGrant: a transaction names one shard twice: ${keys.join(', ')}`)
      }
      for (const { shard, take, limited } of takes) {
        const key = shardKey(grant.programId, shard)
        counters.push({
          key,
          check: (item) => {
            const found = item as ShardRecord | undefined
            if (found?.shardOf === undefined) return false
            return !limited || (found.remaining !== undefined && found.remaining >= take)
          },
        })
        moves.push({
          key,
          move: (item) => {
            const found = item as ShardRecord
            found.issued = (found.issued ?? 0) + take
            if (limited) found.remaining = (found.remaining ?? 0) - take
            found.version = (found.version ?? 0) + 1
          },
        })
      }
    }
    const items = counters.length + 1 + (audit === undefined ? 0 : 1)
    if (items > 100) throw new Error(`createGrant: ${items} items in one transaction (max 100)`)

    // Every condition is checked before anything is written: all of it, or none.
    const existing = this.state.grants.get(grant.grantId)
    if (existing !== undefined) return { kind: 'grant_exists', existing: structuredClone(existing) }
    const failed = counters.findIndex(({ key, check }) => !check(this.state.programs.get(key)))
    if (failed >= 0) {
      const key = (counters[failed] as (typeof counters)[number]).key
      const old = this.copy(this.state.programs.get(key))
      if (target.kind === 'head') return { kind: 'program_rejected', program: old as ProgramRecord }
      const shard = target.kind === 'shard' ? target.shard : (target.takes[failed]?.shard as number)
      if (old === undefined) return { kind: 'shard_missing', shard }
      return { kind: 'shard_dry', shard, remaining: Number((old as ShardRecord).remaining ?? 0) }
    }
    if (audit !== undefined && this.state.audit.some((e) => e.entryId === audit.entryId)) {
      // The DynamoDB store cannot decode this cancellation either.
      throw new Error('Unexpected transaction cancellation: None,ConditionalCheckFailed')
    }
    for (const { key, move } of moves) move(this.state.programs.get(key) as ProgramsItem)
    this.state.grants.set(grant.grantId, structuredClone(grant))
    if (audit !== undefined) this.state.audit.push(structuredClone(audit))
    return { kind: 'created' }
  }

  async readShards(programId: string, shards: number, options?: CallOptions) {
    await this.enter('readShards', { programId, shards }, options)
    // A BatchGetItem answers in no particular order, and leaves out the items it did not find.
    return shardKeys(programId, shards)
      .reverse()
      .flatMap(({ programId: key }) => {
        const shard = this.state.programs.get(key)
        return shard === undefined ? [] : [structuredClone(shard as ShardRecord)]
      })
  }

  async findGrant(grantId: string, options?: CallOptions) {
    await this.enter('findGrant', { grantId }, options)
    return this.copy(this.state.grants.get(grantId))
  }

  async findGrantWithKey(keyHash: string, grantId: string, options?: CallOptions) {
    await this.enter('findGrantWithKey', { keyHash, grantId }, options)
    return {
      key: this.copy(this.state.keys.get(keyHash)),
      grant: this.copy(this.state.grants.get(grantId)),
    }
  }

  async findProgram(programId: string, options?: CallOptions) {
    await this.enter('findProgram', { programId }, options)
    const head = this.findHead(programId)
    if (head === undefined || head.shards === undefined) return head
    const { remaining: _, ...rest } = head
    return sumShards(rest, this.shards(programId))
  }

  // -------------------------------------------------------------------------------------------

  /** Every call goes through here: recorded, aborted with the signal, or failed as asked. */
  private async enter(method: Method, detail: unknown, options: CallOptions | undefined) {
    this.calls.push({ method, detail: structuredClone(detail) })
    // A store call is asynchronous: let other requests in between, as a network call would.
    await Promise.resolve()
    options?.signal?.throwIfAborted()
    if (this.failures.has(method)) {
      const error = this.failures.get(method)
      this.failures.delete(method)
      throw error
    }
  }

  /** The item under that key, as a GetItem reads it (the grant path never asks for a shard's). */
  private findHead(programId: string): ProgramRecord | undefined {
    return this.copy(this.state.programs.get(programId) as ProgramRecord | undefined)
  }

  private copy<T>(value: T | undefined): T | undefined {
    return value === undefined ? undefined : structuredClone(value)
  }
}

/** A new API key of `mode` for `issuerId`: the secret to present and the record to store. */
export const apiKeyFor = (
  issuerId: string,
  mode: Mode,
  extra: Partial<Pick<ApiKeyRecord, 'status' | 'expiresAt'>> = {},
): { secret: string; record: ApiKeyRecord } => {
  const secret = generateApiKey(mode)
  return {
    secret,
    record: {
      keyHash: hashApiKey(secret),
      keyId: newId('apiKey'),
      issuerId,
      mode,
      status: 'active',
      createdAt: '2026-01-01T00:00:00.000Z',
      ...maskApiKey(secret),
      ...extra,
    },
  }
}
