import { currentAccessToken, refreshNow } from './session'

/**
 * The management API, same-origin (`/manage/...`), with the access token as a Bearer token. A 401
 * refreshes the tokens once and retries; a second 401 ends the session (the caller is sent back
 * to sign-in by the session's listener).
 */
export type Mode = 'TEST' | 'LIVE'
export type Role = 'viewer' | 'admin' | 'owner'

export type Me = {
  email: string | null
  memberships: { issuerId: string; issuerName: string | null; role: Role }[]
}

export type Program = {
  id: string
  mode: Mode
  name: string
  status: 'active' | 'paused' | 'closed'
  pool: number | null
  issued: number
  remaining: number | null
  createdAt: string
}

export type ApiKey = {
  id: string
  mode: Mode
  prefix: string
  last4: string
  status: 'active' | 'revoked' | 'expired'
  createdAt: string
  createdBy: string | null
  expiresAt: string | null
}

export type Grant = {
  id: string
  programId: string
  mode: Mode
  recipient: { email: string; name?: string }
  reason: string
  amount: number
  status: string
  createdAt: string
  source: 'api' | 'console' | 'batch'
  sentBy: { sub: string; email: string } | null
  keyId: string | null
  batch: { id: string; row: number } | null
  idempotencyKey: string | null
}

export type Member = {
  memberId: string
  email: string
  role: Role
  status: 'invited' | 'active'
  createdAt: string
  invitedBy: string
}

export type AuditEntry = {
  id: string
  at: string
  actor: { kind: 'person'; sub: string; email: string } | { kind: 'operator'; label: string }
  action: string
  target: { type: string; id: string }
  requestId: string | null
  details: Record<string, string | number | boolean | null>
}

export type RowProblem = {
  row: number
  code: string
  message: string
  errors?: { field: string; message: string }[]
  duplicateOf?: number
}

export type BatchPreview = {
  programId: string
  mode: Mode
  programStatus: Program['status']
  counts: { total: number; valid: number; invalid: number; duplicates: number }
  amount: number
  pool: { limited: boolean; remaining: number | null; enough: boolean; shortBy: number }
  problems: RowProblem[]
}

export type BatchRow = {
  row: number
  email: string
  name: string | null
  amount: number | string
  reason: string | null
  status: 'pending' | 'granted' | 'failed'
  grantId?: string
  code?: string
  message?: string
}

export type Batch = {
  id: string
  programId: string
  mode: Mode
  status: 'queued' | 'running' | 'done' | 'stalled'
  reason: string | null
  createdAt: string
  createdBy: { sub: string; email: string }
  updatedAt: string
  finishedAt: string | null
  counts: { total: number; granted: number; failed: number; pending: number }
  amount: number
  rows: BatchRow[]
  nextCursor: string | null
}

export type FieldError = { field: string; message: string }

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors: FieldError[] = [],
    readonly requestId?: string,
  ) {
    super(message)
  }
}

export class SignedOut extends Error {}

type Options = {
  body?: unknown
  headers?: Record<string, string>
  accept?: string
  signal?: AbortSignal
}

const send = (method: string, path: string, token: string, options: Options) => {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    Accept: options.accept ?? 'application/json',
    ...options.headers,
  }
  let body: string | undefined
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = JSON.stringify(options.body)
  }
  return fetch(path, {
    method,
    headers,
    body,
    cache: 'no-store',
    credentials: 'omit',
    signal: options.signal,
  })
}

/** The answer, or an ApiError with the problem's code, detail and field errors. */
export const request = async (
  method: string,
  path: string,
  options: Options = {},
): Promise<Response> => {
  let token = await currentAccessToken()
  if (!token) throw new SignedOut('Signed out')
  let response: Response
  try {
    response = await send(method, path, token, options)
    if (response.status === 401) {
      token = await refreshNow()
      if (!token) throw new SignedOut('Signed out')
      response = await send(method, path, token, options)
      if (response.status === 401) {
        throw new ApiError(
          401,
          'unauthenticated',
          'Your session is no longer valid. Sign in again.',
        )
      }
    }
  } catch (error) {
    if (error instanceof ApiError || error instanceof SignedOut) throw error
    if ((error as Error).name === 'AbortError') throw error
    throw new ApiError(0, 'network', 'The service could not be reached. Check your connection.')
  }
  if (response.ok) return response
  const text = await response.text()
  let problem: Record<string, unknown> = {}
  try {
    problem = JSON.parse(text) as Record<string, unknown>
  } catch {
    // Not JSON.
  }
  const message =
    typeof problem.detail === 'string'
      ? problem.detail
      : typeof problem.message === 'string'
        ? `${response.status} ${problem.message}`
        : `The service answered ${response.status}.`
  throw new ApiError(
    response.status,
    typeof problem.code === 'string' ? problem.code : String(response.status),
    message,
    Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : [],
    typeof problem.requestId === 'string' ? problem.requestId : undefined,
  )
}

export const getJson = async <T>(path: string, options: Options = {}): Promise<T> =>
  (await (await request('GET', path, options)).json()) as T

export const sendJson = async <T>(
  method: string,
  path: string,
  body?: unknown,
  options: Options = {},
): Promise<T> => {
  const response = await request(method, path, { ...options, body })
  return (response.status === 204 ? undefined : await response.json()) as T
}

export const issuerPath = (issuerId: string) => `/manage/issuers/${encodeURIComponent(issuerId)}`

export const query = (params: Record<string, string | number | undefined | null>) => {
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string | number] =>
      entry[1] !== undefined && entry[1] !== null && entry[1] !== '',
  )
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}`
}

/** A fresh Idempotency-Key: one per logical change, reused if that change is sent again. */
export const newIdempotencyKey = (prefix: string) => `${prefix}-${crypto.randomUUID()}`
