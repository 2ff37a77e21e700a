import type { Mode } from '../domain/api-key'
import { ProgramNotFound, ValidationFailed } from '../domain/errors'
import { idPattern } from '../domain/ids'
import { programRefusal } from '../domain/program'
import { zodIssuesToFieldErrors } from '../domain/validation'
import { type Deadline, NO_DEADLINE } from '../runtime/deadline'
import { sleep as realSleep } from '../runtime/sleep'
import type { GrantStore } from '../stores/grants.store'
import type { AccessCache, ProgramAccess } from './access-cache'
import { readCredential } from './authenticator'
import { makeGrantPause } from './grant-tokens/grant-pause'
import {
  authorityOf,
  type GrantTokensResult,
  type MemberSender,
  newGrantRecord,
  replayOf,
  sendAudit,
} from './grant-tokens/grant-record'
import { writeGrant } from './grant-tokens/grant-write'
import { refusalError } from './program-refusal'

export type { GrantTokensResult, MemberSender } from './grant-tokens/grant-record'

type CommonInput = {
  programId: string | undefined
  idempotencyKey: string | undefined
  body: unknown
  /** The request's time budget; without one (CLI, tests) nothing is cut short. */
  deadline?: Deadline
  /** The HTTP request's id (domain/request-id.ts), kept on the grant it makes. */
  requestId?: string
}

/** The grant API (`apiKey`) or a member through the management API (`member`): one use case. */
export type GrantTokensInput = CommonInput &
  (
    | { apiKey: string | undefined; member?: undefined }
    | { member: MemberSender; apiKey?: undefined }
  )

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
  /**
   * Attempts when another transaction holds a program's one counter (RETRY.grantConflict's by
   * default); on shards and for throttles twice as many.
   */
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

/**
 * One grant: the request checked (nothing read for a bad one), the key or member and the program
 * checked from the access cache (no read when warm), the grant written in one transaction
 * (grant-tokens/grant-write.ts), a replay answered from the grant an Idempotency-Key made.
 */
export const makeGrantTokens = ({
  store,
  access,
  clock = Date.now,
  sleep = realSleep,
  random = Math.random,
  maxAttempts,
}: GrantTokensDeps) => {
  return async (input: GrantTokensInput): Promise<GrantTokensResult> => {
    // Everything that needs no database comes first, so bad requests cost nothing.
    const member = input.member
    const credential = member === undefined ? readCredential(input.apiKey) : undefined
    const { GrantRequestSchema, checkIdempotencyKey } = await loadRequestChecks()
    const parsed = GrantRequestSchema.safeParse(input.body)
    if (!parsed.success) throw new ValidationFailed(zodIssuesToFieldErrors(parsed.error))
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
    const authority = authorityOf(checked, programId, credential, member, clock())
    const grant = newGrantRecord({
      ask: parsed.data,
      programId,
      authority,
      idempotencyKey: input.idempotencyKey,
      member,
      offerDays: checked.program?.head.offerDays,
      createdAt: clock(),
      requestId: input.requestId,
    })
    const audit = sendAudit(grant, member, clock())

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

    const key: { issuerId: string; mode: Mode } = { issuerId: grant.issuerId, mode: grant.mode }
    const early = programRefusal(checked.program?.head, key, 'grant')
    if (early) return refuse(refusalError(early, programId))

    return writeGrant({
      store,
      access,
      random,
      pause: makeGrantPause({ sleep, random, deadline, maxAttempts }),
      signal,
      authority,
      grant,
      audit,
      program: checked.program as ProgramAccess,
      refuse,
    })
  }
}
