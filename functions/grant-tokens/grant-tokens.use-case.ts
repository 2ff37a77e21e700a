import { createHash } from 'node:crypto'
import { type Authenticator, readCredential } from '../shared/authenticator'
import { type Deadline, DYNAMODB_TIMEOUTS, NO_DEADLINE } from '../shared/deadline'
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
} from '../shared/errors'
import { idempotentGrantId, idPattern, newId } from '../shared/ids'
import { zodIssuesToFieldErrors } from '../shared/problem'
import { sleep } from '../shared/sleep'
import type { GrantRecord, GrantStore, KeyIdentity, ProgramRecord } from '../stores/grants.store'
import { GrantRequestSchema, IdempotencyKeySchema, LIMITS } from './grant-request.schema'

export type GrantTokensInput = {
  apiKey: string | undefined
  programId: string | undefined
  idempotencyKey: string | undefined
  body: unknown
  /** The request's time budget; without one (CLI, tests) nothing is cut short. */
  deadline?: Deadline
}

export type GrantTokensResult = { grant: GrantRecord; replayed: boolean }

export type GrantTokensDeps = {
  store: GrantStore
  authenticator: Authenticator
  clock?: () => number
  /** Attempts when another transaction holds the same program or grant item. */
  maxAttempts?: number
}

const PROGRAM_ID = idPattern('program')

export const makeGrantTokens = ({
  store,
  authenticator,
  clock = Date.now,
  maxAttempts = 5,
}: GrantTokensDeps) => {
  return async (input: GrantTokensInput): Promise<GrantTokensResult> => {
    // Everything that needs no database comes first, so bad requests cost nothing.
    const credential = readCredential(input.apiKey)
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
    const key = await authenticator.resolve(credential, clock(), deadline.signal)
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
          : idempotentGrantId(key.issuerId, key.mode, input.idempotencyKey),
      programId,
      issuerId: key.issuerId,
      mode: key.mode,
      recipient,
      reason: request.reason,
      amount: request.amount,
      status: 'reserved',
      createdAt: new Date(clock()).toISOString(),
      requestHash: requestHash(programId, recipient, request.reason, request.amount),
      ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
      keyId: key.keyId,
    }

    for (let attempt = 1; ; attempt++) {
      const outcome = await store.createGrant({
        key,
        grant,
        now: clock(),
        signal: deadline.signal,
      })
      switch (outcome.kind) {
        case 'created':
          return { grant, replayed: false }
        case 'key_rejected':
          authenticator.forget(credential)
          throw new InvalidApiKey()
        case 'grant_exists':
          if (outcome.existing.requestHash !== grant.requestHash) throw new IdempotencyKeyReused()
          return { grant: outcome.existing, replayed: true }
        case 'program_rejected':
          throw programError(programId, outcome.program, key, grant.amount)
        case 'conflict': {
          const pause = backoffMs(attempt)
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
  key: KeyIdentity,
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
const backoffMs = (attempt: number) => Math.random() * 15 * 2 ** attempt

/** Time one more transaction attempt needs to be worth starting: one SDK attempt's timeout. */
const CONFLICT_ATTEMPT_MS = DYNAMODB_TIMEOUTS.attemptTimeoutMs
