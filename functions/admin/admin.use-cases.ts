import { generateApiKey, hashApiKey, MODES, type Mode, maskApiKey } from '../shared/api-key'
import { idPattern, newId } from '../shared/ids'
import type { ApiKeyRecord, ProgramRecord, ProgramStatus } from '../stores/grants.store'
import { AdminError, type AdminStore, type IssuerRecord, WriteConflictError } from './admin.store'

// Operator input is checked here, once, whatever the front end (CLI now, web console later).
const CONTROL = /\p{Cc}/u
const MAX_POOL = 1_000_000_000_000

export const parseMode = (value: string | undefined): Mode => {
  const mode = value?.toUpperCase()
  if (!MODES.includes(mode as Mode)) {
    throw new AdminError(`--mode must be TEST or LIVE, got ${JSON.stringify(value ?? '')}.`)
  }
  return mode as Mode
}

export const parseName = (value: string | undefined, what: string): string => {
  const name = value?.trim() ?? ''
  if (name.length === 0 || name.length > 100 || CONTROL.test(name)) {
    throw new AdminError(`${what} must be 1 to 100 characters without control characters.`)
  }
  return name
}

export const parsePositiveInt = (value: string | undefined, what: string, max: number): number => {
  const n = Number(value)
  if (
    value === undefined ||
    !/^\d+$/.test(value.trim()) ||
    !Number.isSafeInteger(n) ||
    n < 1 ||
    n > max
  ) {
    throw new AdminError(
      `${what} must be a whole number from 1 to ${max}, got ${JSON.stringify(value ?? '')}.`,
    )
  }
  return n
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/**
 * `90d`, `24h`, `30m`, `45s` (or `0` for none where `zero` allows it); at most ten years. A
 * negative or malformed value gets the range in its message.
 */
export const parseDuration = (value: string, what: string, { zero }: { zero: boolean }): number => {
  const match = /^(\d{1,6})([smhd])?$/.exec(value.trim())
  const amount = Number(match?.[1])
  const unit = match?.[2] as keyof typeof UNIT_MS | undefined
  const ms = unit === undefined ? 0 : amount * UNIT_MS[unit]
  if (
    !match ||
    (unit === undefined && amount !== 0) ||
    (ms === 0 && !zero) ||
    ms > 3650 * UNIT_MS.d
  ) {
    throw new AdminError(
      `${what} must be ${zero ? '0 (none) or ' : ''}a duration from 1s to 3650d, like 90d, 24h, 30m or 45s, got ${JSON.stringify(value)}.`,
    )
  }
  return ms
}

const checkId = (kind: 'issuer' | 'program' | 'apiKey', id: string | undefined, label: string) => {
  if (id === undefined || !idPattern(kind).test(id)) {
    throw new AdminError(`${label} ${JSON.stringify(id ?? '')} is not a valid id.`)
  }
  return id
}

const TRANSITIONS: Record<
  'pause' | 'resume' | 'close',
  { to: ProgramStatus; from: ProgramStatus[] }
> = {
  pause: { to: 'paused', from: ['active'] },
  resume: { to: 'active', from: ['paused'] },
  close: { to: 'closed', from: ['active', 'paused'] },
}

/** A write that ran out of conflict retries, told as the change the operator asked for. */
const orBusy = async <T>(change: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write()
  } catch (error) {
    if (!(error instanceof WriteConflictError)) throw error
    throw new AdminError(
      `${change} did NOT take effect: grants in flight kept it busy (DynamoDB transaction conflict, ${error.attempts} attempts in ${(error.elapsedMs / 1000).toFixed(1)} s). Run the command again.`,
    )
  }
}

const GERUND = { pause: 'Pausing', resume: 'Resuming', close: 'Closing' } as const

export type KeyView = ApiKeyRecord & { state: 'active' | 'revoked' | 'expired' }

export const makeAdmin = (store: AdminStore, clock: () => number = Date.now) => {
  const iso = () => new Date(clock()).toISOString()

  const requireProgram = async (programId: string) => {
    const program = await store.getProgram(checkId('program', programId, 'Program'))
    if (!program) throw new AdminError(`No program ${programId}.`)
    return program
  }

  const requireKey = async (keyId: string) => {
    const key = await store.findApiKeyById(checkId('apiKey', keyId, 'Key'))
    if (!key) throw new AdminError(`No key ${keyId}.`)
    return key
  }

  const newKey = (issuerId: string, mode: Mode, expiresAt?: number) => {
    const secret = generateApiKey(mode)
    const record: ApiKeyRecord = {
      keyHash: hashApiKey(secret),
      keyId: newId('apiKey'),
      issuerId,
      mode,
      status: 'active',
      createdAt: iso(),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      ...maskApiKey(secret),
    }
    return { secret, record }
  }

  const keyView = (key: ApiKeyRecord): KeyView => ({
    ...key,
    state:
      key.status === 'revoked'
        ? 'revoked'
        : key.expiresAt !== undefined && key.expiresAt <= clock()
          ? 'expired'
          : 'active',
  })

  return {
    async createIssuer(input: { name?: string }): Promise<IssuerRecord> {
      const issuer = {
        issuerId: newId('issuer'),
        name: parseName(input.name, '--name'),
        createdAt: iso(),
      }
      await orBusy('Creating the issuer', () => store.createIssuer(issuer))
      return issuer
    },

    listIssuers: async () =>
      (await store.listIssuers()).sort((a, b) => a.createdAt.localeCompare(b.createdAt)),

    async createProgram(input: { issuer?: string; mode?: string; name?: string; pool?: string }) {
      const pool =
        input.pool === undefined ? undefined : parsePositiveInt(input.pool, '--pool', MAX_POOL)
      const program: ProgramRecord = {
        programId: newId('program'),
        issuerId: checkId('issuer', input.issuer, 'Issuer'),
        mode: parseMode(input.mode),
        name: parseName(input.name, '--name'),
        status: 'active',
        issued: 0,
        ...(pool === undefined ? {} : { pool, remaining: pool }),
        createdAt: iso(),
      }
      await orBusy('Creating the program', () => store.createProgram(program))
      return program
    },

    listPrograms: (filter: { issuer?: string; mode?: string }) =>
      store.listPrograms({
        ...(filter.issuer === undefined
          ? {}
          : { issuerId: checkId('issuer', filter.issuer, 'Issuer') }),
        ...(filter.mode === undefined ? {} : { mode: parseMode(filter.mode) }),
      }),

    /** The program with what is left of its pool (null: no pool, unlimited). */
    async showProgram(programId: string) {
      const program = await requireProgram(programId)
      return {
        ...program,
        pool: program.pool ?? null,
        remaining: program.pool === undefined ? null : program.pool - program.issued,
      }
    },

    async changeProgramStatus(programId: string, action: keyof typeof TRANSITIONS) {
      const program = await requireProgram(programId)
      const { to, from } = TRANSITIONS[action]
      if (
        !from.includes(program.status) ||
        !(await orBusy(`${GERUND[action]} program ${programId}`, () =>
          store.setProgramStatus(programId, to, from),
        ))
      ) {
        const current = (await store.getProgram(programId))?.status ?? program.status
        throw new AdminError(
          current === 'closed'
            ? `Program ${programId} is closed; closing is final.`
            : `Program ${programId} is ${current}; cannot ${action} it.`,
        )
      }
      return { ...program, status: to }
    },

    async createKey(input: { issuer?: string; mode?: string; expiresIn?: string }) {
      const issuerId = checkId('issuer', input.issuer, 'Issuer')
      const mode = parseMode(input.mode)
      const ttl =
        input.expiresIn === undefined
          ? undefined
          : parseDuration(input.expiresIn, '--expires-in', { zero: false })
      const key = newKey(issuerId, mode, ttl === undefined ? undefined : clock() + ttl)
      await orBusy('Creating the key', () => store.createApiKey(key.record))
      return key
    },

    listKeys: async (filter: { issuer?: string }) =>
      (
        await store.listApiKeys(
          filter.issuer === undefined
            ? {}
            : { issuerId: checkId('issuer', filter.issuer, 'Issuer') },
        )
      ).map(keyView),

    async revokeKey(keyId: string) {
      const key = await requireKey(keyId)
      await orBusy(`Revoking key ${keyId}`, () => store.revokeApiKey(key.keyHash))
      return keyView({ ...key, status: 'revoked' })
    },

    /**
     * Like Stripe's roll: a new key now; the old one keeps working for the grace period, then
     * stops (never later than it would have anyway).
     */
    async rollKey(keyId: string, grace = '24h') {
      const graceMs = parseDuration(grace, '--grace', { zero: true })
      const old = await requireKey(keyId)
      if (keyView(old).state !== 'active')
        throw new AdminError(
          `Key ${keyId} is ${keyView(old).state}; only an active key can be rolled.`,
        )
      const now = clock()
      const oldExpiresAt = Math.min(old.expiresAt ?? Number.POSITIVE_INFINITY, now + graceMs)
      const next = newKey(old.issuerId, old.mode, old.expiresAt)
      const rolled = await orBusy(`Rolling key ${keyId}`, () =>
        store.rollApiKey({ old, next: next.record, oldExpiresAt, now }),
      )
      if (!rolled) {
        throw new AdminError(`Key ${keyId} changed while rolling it; run the command again.`)
      }
      return {
        ...next,
        old: keyView({
          ...old,
          expiresAt: oldExpiresAt,
          rolledTo: next.record.keyId,
        } as ApiKeyRecord),
      }
    },

    async listGrants(input: {
      program?: string
      recipient?: string
      limit?: string
      cursor?: string
    }) {
      const programId = checkId('program', input.program, 'Program')
      const limit = input.limit === undefined ? 50 : parsePositiveInt(input.limit, '--limit', 1000)
      // An unknown program is an error, as for `program show`, not an empty list.
      await requireProgram(programId)
      const recipient = input.recipient?.trim().toLowerCase()
      return store.listGrants({
        programId,
        limit,
        ...(recipient === undefined ? {} : { recipientEmail: recipient }),
        ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
      })
    },
  }
}

export type Admin = ReturnType<typeof makeAdmin>
