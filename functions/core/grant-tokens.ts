import { createHash } from 'node:crypto'
import type { Mode } from '../domain/api-key'
import { keyAuthorizes } from '../domain/api-key'
import {
  IdempotencyKeyReused,
  InvalidApiKey,
  PoolExhausted,
  ProgramNotFound,
  RequestConflict,
  ServiceUnavailable,
  ValidationFailed,
} from '../domain/errors'
import type { GrantRecord, GrantSender } from '../domain/grant'
import { offerExpiresAt } from '../domain/grant-lifecycle'
import { grantListSlot } from '../domain/grant-slots'
import { idempotentGrantId, idPattern, newId } from '../domain/ids'
import { ownedBy, type ProgramRecord, programRefusal } from '../domain/program'
import {
  poolRemaining,
  type ShardRecord,
  type ShardTake,
  sliceOf,
  spreadTakes,
} from '../domain/program-shards'
import { zodIssuesToFieldErrors } from '../domain/validation'
import { type Deadline, DYNAMODB_TIMEOUTS, NO_DEADLINE } from '../runtime/deadline'
import { sleep as realSleep } from '../runtime/sleep'
import { auditEntry } from '../stores/audit'
import type { GrantAuthority, GrantStore, GrantTarget } from '../stores/grants.store'
import type { AccessCache, ProgramAccess } from './access-cache'
import { readCredential } from './authenticator'
import { refusalError } from './program-refusal'

type CommonInput = {
  programId: string | undefined
  idempotencyKey: string | undefined
  body: unknown
  /** The request's time budget; without one (CLI, tests) nothing is cut short. */
  deadline?: Deadline
}

/**
 * A member of the issuer sending through the management API. The route has checked, on this
 * request, that they belong to `issuerId` with a role that may send; the program must belong to
 * that issuer (another issuer's answers as a missing one), and the Idempotency-Key is scoped to
 * issuer and mode, exactly as the API's.
 */
export type MemberSender = {
  issuerId: string
  sentBy: GrantSender
  /**
   * The program's mode when the caller already knows it (a batch, from its program): no read.
   * Otherwise the program is read first, for its issuer and mode.
   */
  mode?: Mode
  /** The audit entry written in the grant's transaction (absent for the rows of a batch). */
  audit?: { requestId?: string }
  /** For the rows of a batch: the batch and the row, recorded on the grant. */
  batch?: { batchId: string; row: number }
}

/** The grant API (`apiKey`) or a member through the management API (`member`): one use case. */
export type GrantTokensInput = CommonInput &
  (
    | { apiKey: string | undefined; member?: undefined }
    | { member: MemberSender; apiKey?: undefined }
  )

export type GrantTokensResult = { grant: GrantRecord; replayed: boolean }

export type GrantTokensDeps = {
  store: GrantStore
  /** Key validity and program heads, each at most CHECK_BOUND_MS old (access-cache.ts). */
  access: AccessCache
  /** Wall clock (ms): the grant's `createdAt` and key expiry. */
  clock?: () => number
  /** Waits between attempts; the contention model passes its virtual time. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  /** Picks shards and jitter; the contention model passes a seeded one. */
  random?: () => number
  /** Attempts when another transaction holds an item, or a partition is over its throughput. */
  maxAttempts?: number
}

const PROGRAM_ID = idPattern('program')

/**
 * The request's checks (zod) are evaluated on the first request, not at import: zod and the
 * schemas it builds were the largest share of what the grant function adds to a cold start's
 * import over the bare SDK (npm run bench, "import time"). Later requests await a settled promise.
 */
let requestChecks: Promise<typeof import('../domain/grant-request.schema')> | undefined
const loadRequestChecks = () => {
  requestChecks ??= import('../domain/grant-request.schema')
  return requestChecks
}

export const makeGrantTokens = ({
  store,
  access,
  clock = Date.now,
  sleep = realSleep,
  random = Math.random,
  maxAttempts = 5,
}: GrantTokensDeps) => {
  return async (input: GrantTokensInput): Promise<GrantTokensResult> => {
    // Everything that needs no database comes first, so bad requests cost nothing.
    const member = input.member
    const credential = member === undefined ? readCredential(input.apiKey) : undefined
    const { GrantRequestSchema, checkIdempotencyKey } = await loadRequestChecks()
    const parsed = GrantRequestSchema.safeParse(input.body)
    if (!parsed.success) throw new ValidationFailed(zodIssuesToFieldErrors(parsed.error))
    const request = parsed.data
    checkIdempotencyKey(input.idempotencyKey)
    const programId = input.programId ?? ''
    // An id we could never have issued cannot exist: answer as for any unknown program.
    if (!PROGRAM_ID.test(programId)) throw new ProgramNotFound(programId)

    const deadline = input.deadline ?? NO_DEADLINE
    const signal = deadline.signal
    // The key and the program's head, each re-read once CHECK_BOUND_MS old: one round trip when
    // due, none when warm.
    const checked = await access.check(
      { ...(credential ? { keyHash: credential.keyHash } : {}), programId },
      { signal },
    )
    let program = checked.program
    let authority: GrantAuthority
    if (credential) {
      const key = checked.key
      if (!keyAuthorizes(key, credential.mode, clock())) throw new InvalidApiKey()
      authority = {
        kind: 'key',
        key: { keyHash: key.keyHash, keyId: key.keyId, issuerId: key.issuerId, mode: key.mode },
      }
    } else {
      const sender = member as MemberSender
      // Another issuer's program answers as a missing one; issuer and mode never change.
      if (!ownedBy(program?.head, sender.issuerId)) throw new ProgramNotFound(programId)
      authority = {
        kind: 'issuer',
        issuerId: sender.issuerId,
        mode: sender.mode ?? program.head.mode,
      }
    }
    const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority
    // "" and null are how existing integrations say "no name": stored as no name at all.
    const name = request.recipient.name || undefined
    const recipient =
      name === undefined
        ? { email: request.recipient.email }
        : { email: request.recipient.email, name }
    const grantId =
      input.idempotencyKey === undefined
        ? newId('grant')
        : idempotentGrantId(issuerId, mode, input.idempotencyKey)
    // One reading of the clock: the offer window runs from the grant's own createdAt.
    const createdAt = clock()
    const grant: GrantRecord = {
      grantId,
      programId,
      issuerId,
      mode,
      recipient,
      reason: request.reason,
      amount: request.amount,
      status: 'reserved',
      createdAt: new Date(createdAt).toISOString(),
      requestHash: requestHash(programId, recipient, request.reason, request.amount),
      ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
      ...(authority.kind === 'key' ? { keyId: authority.key.keyId } : {}),
      ...(member === undefined ? {} : { sentBy: member.sentBy }),
      ...(member?.batch === undefined ? {} : { batch: member.batch }),
      programSlot: grantListSlot(programId, grantId),
      // The offer window is the program's when the grant is made (its head is already at hand).
      expiresAt: offerExpiresAt(createdAt, program?.head.offerDays),
      recipientKey: recipient.email,
    }
    // One entry per send, in the grant's own transaction; a replay writes none.
    const audit =
      member?.audit === undefined
        ? undefined
        : auditEntry({
            issuerId,
            actor: { kind: 'person', ...member.sentBy },
            action: 'grant.send',
            target: { type: 'grant', id: grant.grantId },
            now: clock(),
            requestId: member.audit.requestId,
            details: { programId, mode, amount: grant.amount, recipient: recipient.email },
          })

    /**
     * A refusal decided without writing: a replay of a grant already made still wins over it
     * (as when the transaction decided), so with an Idempotency-Key the grant is looked up first.
     */
    const refuse = async (error: Error): Promise<GrantTokensResult> => {
      if (input.idempotencyKey !== undefined) {
        const existing = await store.findGrant(grant.grantId, { signal })
        if (existing) return replayOf(existing, grant)
      }
      throw error
    }

    const early = programRefusal(program?.head, { issuerId, mode }, 'grant')
    if (early) return refuse(refusalError(early, programId))

    let attempt = 1
    // Reads of the shards (and of the head): bounded (MAX_READS); each follows a write that failed
    // because another grant took from the same slices (the pool moved on), or a conflict.
    let reads = 0
    // The shard that just conflicted: the next pick avoids it when it can.
    let last: number | undefined
    // A slice was found short in this request: the next choice is made from a read of them all.
    let mustRead = false
    for (;;) {
      const current = program as ProgramAccess
      const target = (mustRead ? undefined : pickTarget(current)) ?? (await fromRead(current))
      if ('refusal' in target) return refuse(target.refusal)
      recordDraws(target)
      const outcome = await store.createGrant({
        authority,
        target,
        grant,
        ...(audit === undefined ? {} : { audit }),
        signal,
      })
      switch (outcome.kind) {
        case 'created':
          taken(current, target)
          return { grant, replayed: false }
        case 'grant_exists':
          return replayOf(outcome.existing, grant)
        case 'program_rejected': {
          // The head said no; if it was split meanwhile, go on with its shards.
          if (outcome.program?.shards !== undefined) {
            await reload()
            break
          }
          throw programError(programId, outcome.program, { issuerId, mode }, grant.amount)
        }
        case 'shard_dry':
          current.seen.set(outcome.shard, outcome.remaining)
          mustRead = true
          break
        case 'shard_missing':
          await reload()
          break
        case 'conflict':
        case 'throttled':
          await pause(outcome.kind, target.kind !== 'head')
          if (target.kind === 'shard') last = target.shard
          // Another grant held some of a spread's slices: choose again from a new read.
          if (target.kind === 'spread') mustRead = true
      }
    }

    /**
     * The slices this attempt takes from, on the grant itself (written in its own PutItem): a
     * grant that ends unaccepted gives its shares back there (returning-shares.md).
     */
    function recordDraws(target: GrantTarget) {
      delete grant.shard
      delete grant.draws
      if (target.kind === 'shard') grant.shard = target.shard
      if (target.kind === 'spread')
        grant.draws = target.takes.map(({ shard, take }) => ({ shard, take }))
    }

    /** What this grant took comes off what the instance has seen of those slices. */
    function taken(current: ProgramAccess, target: GrantTarget) {
      const parts =
        target.kind === 'spread'
          ? target.takes
          : target.kind === 'shard' && target.limited
            ? [{ shard: target.shard, take: grant.amount }]
            : []
      for (const { shard, take } of parts) {
        const seen = current.seen.get(shard)
        if (seen !== undefined) current.seen.set(shard, Math.max(0, seen - take))
      }
    }

    /** Counts a read; past the bound, the pool is moving too fast to settle: a conflict. */
    function nextRead() {
      if (++reads > MAX_READS) throw new RequestConflict()
    }

    /** Reads the head again (its shard count changed) and checks it again. */
    async function reload() {
      nextRead()
      access.forgetProgram(programId)
      program = (await access.check({ programId }, { signal })).program
      const refusal = programRefusal(program?.head, { issuerId, mode }, 'grant')
      if (refusal) throw refusalError(refusal, programId)
    }

    /**
     * Waits before another attempt, if one may still finish before the deadline. A conflict on
     * shards says little about the next try (another shard, or a new read): a short jittered
     * pause and twice the attempts; on a program's one counter, or a throttle, the full backoff.
     */
    async function pause(kind: 'conflict' | 'throttled', onShard = false) {
      const spread = kind === 'conflict' && onShard
      const wait = spread
        ? random() * 5 * attempt
        : kind === 'throttled'
          ? random() * Math.min(1_000, 25 * 2 ** attempt)
          : backoffMs(attempt, random)
      // A throttle passes as the partition's second turns over: more, longer waits, in the budget.
      const limit = spread || kind === 'throttled' ? maxAttempts * 2 : maxAttempts
      if (attempt >= limit || deadline.remainingMs() < wait + CONFLICT_ATTEMPT_MS) {
        if (kind === 'throttled') {
          throw new ServiceUnavailable({
            cause: new Error(`DynamoDB throttled ${attempt} attempts of one grant`),
          })
        }
        throw new RequestConflict()
      }
      attempt++
      await sleep(wait, signal)
    }

    /**
     * The counter this attempt moves, decided from what is known without a read: the head (a
     * program without shards), a refusal (a read a moment ago found the pool short), or a random
     * shard whose slice may hold the whole grant (not the one that just conflicted, when there is
     * another): a slice's first size, or what was last seen of it, bounds what it holds (slices
     * only shrink). Undefined when no slice can hold the grant alone: a read decides (fromRead).
     */
    function pickTarget(current: ProgramAccess): GrantTarget | { refusal: Error } | undefined {
      const { head } = current
      if (head.shards === undefined) return { kind: 'head' }
      const shards = head.shards
      const pool = head.pool
      // An unlimited program's shards only count: any shard takes any grant.
      if (pool === undefined) {
        const shard =
          last === undefined ? Math.floor(random() * shards) : pickOther(allShards(shards))
        return { kind: 'shard', shard, limited: false }
      }
      const known = access.knownExhausted(current, grant.amount)
      if (known !== undefined) return { refusal: new PoolExhausted(known, grant.amount) }
      // The warm path: nothing seen of the slices, an amount every slice started with: any shard.
      if (
        current.seen.size === 0 &&
        last === undefined &&
        grant.amount <= Math.floor(pool / shards)
      ) {
        return { kind: 'shard', shard: Math.floor(random() * shards), limited: true }
      }
      const fits: number[] = []
      for (let i = 0; i < shards; i++) {
        if ((current.seen.get(i) ?? sliceOf(pool, shards, i)) >= grant.amount) fits.push(i)
      }
      if (fits.length === 0) return undefined
      return { kind: 'shard', shard: pickOther(fits), limited: true }
    }

    /** A random one of `candidates`, not the shard that just conflicted when there is another. */
    function pickOther(candidates: number[]): number {
      const others = candidates.length > 1 ? candidates.filter((s) => s !== last) : candidates
      return others[Math.floor(random() * others.length)] as number
    }

    /**
     * Every shard read, strongly consistent, in one BatchGetItem (no transaction in flight can
     * cancel it): the pool is short (their total is below the amount; program-shards.ts says why
     * that proves it), or a slice holds the grant, or (room in total, none in any one slice) the
     * grant is taken in parts from the fullest slices, in its own transaction.
     */
    async function fromRead(current: ProgramAccess): Promise<GrantTarget | { refusal: Error }> {
      const shards = current.head.shards as number
      nextRead()
      const found = await store.readShards(programId, shards, { signal })
      mustRead = false
      if (found.length !== shards) {
        await reload()
        const reloaded = program as ProgramAccess
        return pickTarget(reloaded) ?? fromRead(reloaded)
      }
      let total = access.learnShards(current, found, grant.amount)
      if (total < grant.amount) {
        // Returns make slices grow, so one read's total may be below what the pool held at any
        // one moment. A second read with every shard's version unchanged proves nothing was
        // written between them: the first read's values held together (the double collect).
        nextRead()
        const again = await store.readShards(programId, shards, { signal })
        if (sameVersions(found, again)) return { refusal: new PoolExhausted(total, grant.amount) }
        total = access.learnShards(current, again, grant.amount)
        if (total < grant.amount) return fromRead(current)
      }
      const fits = [...current.seen.entries()]
        .filter(([, left]) => left >= grant.amount)
        .map(([shard]) => shard)
      if (fits.length > 0) return { kind: 'shard', shard: pickOther(fits), limited: true }
      return {
        kind: 'spread',
        takes: spreadTakes(current.seen, grant.amount, random) as ShardTake[],
      }
    }
  }
}

/** Whether two reads of a program's shards saw every shard at the same version (no write between). */
const sameVersions = (first: ShardRecord[], second: ShardRecord[]) => {
  const versions = new Map(first.map((shard) => [shard.programId, shard.version ?? 0]))
  return (
    first.length === second.length &&
    second.every((shard) => versions.get(shard.programId) === (shard.version ?? 0))
  )
}

const allShards = (shards: number) => Array.from({ length: shards }, (_, i) => i)

/**
 * Bound on reads of the shards (and of the head) in one grant. Each follows a write that failed
 * only because other grants took from, or held, the same slices a moment before: the pool moved
 * on. When it moves this fast, the caller retries with the same Idempotency-Key.
 */
const MAX_READS = 12

const replayOf = (existing: GrantRecord, grant: GrantRecord): GrantTokensResult => {
  if (existing.requestHash !== grant.requestHash) throw new IdempotencyKeyReused()
  return { grant: existing, replayed: true }
}

const programError = (
  programId: string,
  program: ProgramRecord | undefined,
  key: { issuerId: string; mode: Mode },
  amount: number,
) => {
  const refusal = programRefusal(program, key, 'grant')
  if (refusal) return refusalError(refusal, programId)
  if (!program) return new ProgramNotFound(programId)
  const remaining = poolRemaining(program.pool, program.issued)
  if (remaining !== null) return new PoolExhausted(remaining, amount)
  // Every condition held when read back: a concurrent change; the caller may retry.
  return new RequestConflict()
}

const requestHash = (
  programId: string,
  recipient: GrantRecord['recipient'],
  reason: string,
  amount: number,
) =>
  createHash('sha256')
    .update(JSON.stringify([programId, recipient.email, recipient.name ?? null, reason, amount]))
    .digest('hex')

// Full jitter: conflicting requests spread out instead of colliding again in lockstep.
const backoffMs = (attempt: number, random: () => number) => random() * 15 * 2 ** attempt

/** Time one more transaction attempt needs to be worth starting: one SDK attempt's timeout. */
const CONFLICT_ATTEMPT_MS = DYNAMODB_TIMEOUTS.attemptTimeoutMs
