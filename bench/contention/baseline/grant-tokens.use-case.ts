/**
 * FROZEN COPY of the grant use case as released before counter shards (commit b6ccc1b), kept only
 * so `npm run bench` can measure "today's design" side by side with the sharded one in the
 * contention model. Two changes, both injections: `sleep` and `random` (virtual time, seeded
 * jitter). Never imported by the service.
 */
import { createHash } from 'node:crypto'
import type { Mode } from '../../../functions/domain/api-key'
import { auditEntry } from '../../../functions/domain/audit-entry'
import {
  IdempotencyKeyReused,
  InvalidApiKey,
  InvalidIdempotencyKey,
  ModeMismatch,
  PoolExhausted,
  ProgramInactive,
  ProgramNotFound,
  RequestConflict,
  ValidationFailed,
} from '../../../functions/domain/errors'
import {
  GrantRequestSchema,
  IdempotencyKeySchema,
  LIMITS,
} from '../../../functions/domain/grant-request.schema'
import { idempotentGrantId, idPattern, newId } from '../../../functions/domain/ids'
import { zodIssuesToFieldErrors } from '../../../functions/domain/validation'
import { type Deadline, DYNAMODB_TIMEOUTS, NO_DEADLINE } from '../../../functions/runtime/deadline'
import { sleep as realSleep } from '../../../functions/runtime/sleep'
import { type Authenticator, readCredential } from './authenticator'
import type {
  GrantAuthority,
  GrantRecord,
  GrantSender,
  GrantStore,
  ProgramRecord,
} from './grants.store'

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
  authenticator: Authenticator
  clock?: () => number
  /** Attempts when another transaction holds the same program or grant item. */
  maxAttempts?: number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
  random?: () => number
}

const PROGRAM_ID = idPattern('program')

export const makeGrantTokens = ({
  store,
  authenticator,
  clock = Date.now,
  maxAttempts = 5,
  sleep = realSleep,
  random = Math.random,
}: GrantTokensDeps) => {
  /**
   * The member's issuer and the program's mode. Without a known mode, the program is read
   * (strongly consistent) for it: another issuer's program answers as a missing one. The grant's
   * transaction then requires the same issuer and mode, so nothing read here can go stale.
   */
  const memberAuthority = async (
    member: MemberSender,
    programId: string,
    deadline: Deadline,
  ): Promise<GrantAuthority> => {
    if (member.mode !== undefined) {
      return { kind: 'issuer', issuerId: member.issuerId, mode: member.mode }
    }
    const program = await store.findProgram(programId, { signal: deadline.signal })
    if (!program || program.issuerId !== member.issuerId) throw new ProgramNotFound(programId)
    return { kind: 'issuer', issuerId: member.issuerId, mode: program.mode }
  }

  return async (input: GrantTokensInput): Promise<GrantTokensResult> => {
    // Everything that needs no database comes first, so bad requests cost nothing.
    const member = input.member
    const credential = member === undefined ? readCredential(input.apiKey) : undefined
    const parsed = GrantRequestSchema.safeParse(input.body)
    if (!parsed.success) throw new ValidationFailed(zodIssuesToFieldErrors(parsed.error))
    const request = parsed.data
    if (
      input.idempotencyKey !== undefined &&
      !IdempotencyKeySchema.safeParse(input.idempotencyKey).success
    ) {
      throw new InvalidIdempotencyKey(
        `Idempotency-Key must be 1 to ${LIMITS.maxIdempotencyKeyLength} printable ASCII characters.`,
      )
    }
    const programId = input.programId ?? ''
    // An id we could never have issued cannot exist: answer as for any unknown program.
    if (!PROGRAM_ID.test(programId)) throw new ProgramNotFound(programId)

    const deadline = input.deadline ?? NO_DEADLINE
    const authority: GrantAuthority = credential
      ? { kind: 'key', key: await authenticator.resolve(credential, clock(), deadline.signal) }
      : await memberAuthority(member as MemberSender, programId, deadline)
    const { issuerId, mode } = authority.kind === 'key' ? authority.key : authority
    // "" and null are how existing integrations say "no name": stored as no name at all.
    const name = request.recipient.name || undefined
    const recipient =
      name === undefined
        ? { email: request.recipient.email }
        : { email: request.recipient.email, name }
    const grant: GrantRecord = {
      grantId:
        input.idempotencyKey === undefined
          ? newId('grant')
          : idempotentGrantId(issuerId, mode, input.idempotencyKey),
      programId,
      issuerId,
      mode,
      recipient,
      reason: request.reason,
      amount: request.amount,
      status: 'reserved',
      createdAt: new Date(clock()).toISOString(),
      requestHash: requestHash(programId, recipient, request.reason, request.amount),
      ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
      ...(authority.kind === 'key' ? { keyId: authority.key.keyId } : {}),
      ...(member === undefined ? {} : { sentBy: member.sentBy }),
      ...(member?.batch === undefined ? {} : { batch: member.batch }),
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

    for (let attempt = 1; ; attempt++) {
      const outcome = await store.createGrant({
        authority,
        grant,
        now: clock(),
        ...(audit === undefined ? {} : { audit }),
        signal: deadline.signal,
      })
      switch (outcome.kind) {
        case 'created':
          return { grant, replayed: false }
        case 'key_rejected':
          if (credential) authenticator.forget(credential)
          throw new InvalidApiKey()
        case 'grant_exists':
          if (outcome.existing.requestHash !== grant.requestHash) throw new IdempotencyKeyReused()
          return { grant: outcome.existing, replayed: true }
        case 'program_rejected':
          throw programError(programId, outcome.program, { issuerId, mode }, grant.amount)
        case 'conflict': {
          const pause = backoffMs(attempt, random)
          // Another attempt only while it can still finish before the deadline.
          if (attempt >= maxAttempts || deadline.remainingMs() < pause + CONFLICT_ATTEMPT_MS) {
            throw new RequestConflict()
          }
          await sleep(pause, deadline.signal)
        }
      }
    }
  }
}

const programError = (
  programId: string,
  program: ProgramRecord | undefined,
  key: { issuerId: string; mode: Mode },
  amount: number,
) => {
  if (!program || program.issuerId !== key.issuerId) return new ProgramNotFound(programId)
  if (program.mode !== key.mode) return new ModeMismatch(program.mode, key.mode)
  if (program.status !== 'active') return new ProgramInactive(program.status)
  if (program.pool !== undefined) {
    return new PoolExhausted(Math.max(0, program.pool - program.issued), amount)
  }
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
