import type { MemberView } from '../../functions/core/members'
import type { Mode } from '../../functions/domain/api-key'
import type { OfferSettingsChange } from '../../functions/domain/offer-settings'
import type { MembershipRecord, Role } from '../../functions/domain/people'
import type { WebhookAttempt, WebhookEventKind } from '../../functions/domain/webhooks'
import type { RowView, toBatchView } from '../../functions/http/batch-view'
import type { ManagedGrant } from '../../functions/http/grant-view'
import type { auditResource, keyResource, programResource } from '../../functions/http/manage-admin'
import type { batchPreview } from '../../functions/http/routes/manage/grant-batch-create.route'
import type { inboxResource } from '../../functions/http/routes/manage/inbox-list.route'
import type { EndpointView, MessageView } from '../../functions/http/webhook-view'
import { currentAccessToken, refreshNow } from './session'

/**
 * The management API, same-origin (`/manage/...`), with the access token as a Bearer token. A 401
 * refreshes the tokens once and retries; a second 401 ends the session (the caller is sent back
 * to sign-in by the session's listener). Every path is built here, once; the answers' types are
 * the server's own (type-only imports: no server code reaches the bundle).
 */
export type { Mode, Role }

export type Me = {
  email: string | null
  memberships: (Pick<MembershipRecord, 'issuerId' | 'role'> & { issuerName: string | null })[]
}
export type Program = ReturnType<typeof programResource>
export type ApiKey = ReturnType<typeof keyResource>
export type Grant = ManagedGrant
export type Member = MemberView
export type AuditEntry = ReturnType<typeof auditResource>
export type BatchPreview = ReturnType<typeof batchPreview>
export type BatchSummary = ReturnType<typeof toBatchView>
export type Batch = BatchSummary & { rows: RowView[]; nextCursor: string | null }
export type InboxMessage = ReturnType<typeof inboxResource>
export type RenderedMail = { subject: string; text: string; html: string }
/** `null` removes a rule; terms are replaced (text or link), and get their next version. */
export type OfferSettingsBody = OfferSettingsChange
type Page<T> = { data: T[]; nextCursor: string | null }

export type { WebhookAttempt, WebhookEventKind }
/** An endpoint as the management API shows it: never its secret (only create and rotate answer it). */
export type WebhookEndpoint = EndpointView
/** One message of an endpoint's delivery log, with every attempt so far. */
export type WebhookMessage = MessageView
export type WebhookEndpointBody = {
  url?: string
  kinds?: WebhookEventKind[]
  enabled?: boolean
  description?: string
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

const getJson = async <T>(path: string): Promise<T> =>
  (await (await request('GET', path)).json()) as T

const sendJson = async <T>(
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<T> => {
  const response = await request(method, path, { body, ...(headers ? { headers } : {}) })
  return (response.status === 204 ? undefined : await response.json()) as T
}

/** One page of a CSV export and the cursor of the next (`x-next-cursor`), null at the end. */
export type CsvPage = { csv: string; next: string | null }

const query = (params: Record<string, string | number | undefined | null>) => {
  const entries = Object.entries(params).filter(
    (entry): entry is [string, string | number] =>
      entry[1] !== undefined && entry[1] !== null && entry[1] !== '',
  )
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)]))}`
}

/** One path segment: an id from an address is never taken for more than one segment. */
const at = (...segments: string[]) => segments.map(encodeURIComponent).join('/')

/** A fresh Idempotency-Key: one per logical change, reused if that change is sent again. */
export const newIdempotencyKey = (prefix: string) => `${prefix}-${crypto.randomUUID()}`

export type ProgramAction = 'pause' | 'resume' | 'close'
export type GrantBody = {
  recipient: { email: string; name?: string }
  reason: string
  amount: number
}
/** The rows as the CSV text (up to 1 MB) or an uploaded file's id; `problemsFrom` pages a dry run. */
export type BatchBody = ({ csv: string } | { upload: string }) & {
  reason?: string
  problemsFrom?: number
}
/** Where to POST a CSV file (CreateGrantBatchUpload): console/src/batch-upload.ts sends it. */
export type BatchUpload = {
  object: 'grant_batch_upload'
  uploadId: string
  url: string
  fields: Record<string, string>
  expiresAt: string
  maxBytes: number
}
type Cursor = { cursor?: string | undefined }

export const me = () => getJson<Me>('/manage/me')

/** The management API of one issuer: what its pages read and change. */
export const issuerApi = (issuerId: string) => {
  const base = `/manage/issuers/${at(issuerId)}`
  const program = (programId: string) => `${base}/programs/${at(programId)}`
  const batches = (programId: string) => `${program(programId)}/grant-batches`
  const key = (keyId: string) => `${base}/keys/${at(keyId)}`
  const member = (memberId: string) => `${base}/members/${at(memberId)}`
  const endpoints = `${base}/webhook-endpoints`
  const endpoint = (endpointId: string) => `${endpoints}/${at(endpointId)}`
  return {
    programs: (mode: Mode) =>
      getJson<{ programs: Program[] }>(`${base}/programs${query({ mode })}`).then(
        (r) => r.programs,
      ),
    program: (programId: string) => getJson<Program>(program(programId)),
    createProgram: (body: { name: string; mode: Mode; pool?: number }) =>
      sendJson<Program>('POST', `${base}/programs`, body),
    changeProgram: (programId: string, action: ProgramAction) =>
      sendJson<Program>('POST', `${program(programId)}/${action}`),

    grants: (programId: string, params: Cursor & { recipient: string; limit: number }) =>
      getJson<Page<Grant>>(`${program(programId)}/grants${query(params)}`),
    /** A page of the CSV export and the cursor of the next one. */
    grantsCsv: async (
      programId: string,
      params: Cursor & { recipient: string },
    ): Promise<CsvPage> => {
      const response = await request(
        'GET',
        `${program(programId)}/grants${query({ ...params, limit: 1000 })}`,
        { accept: 'text/csv' },
      )
      return { csv: await response.text(), next: response.headers.get('x-next-cursor') }
    },
    sendGrant: (programId: string, body: GrantBody, idempotencyKey: string) =>
      sendJson<Grant>('POST', `${program(programId)}/grants`, body, {
        'Idempotency-Key': idempotencyKey,
      }),

    /** A presigned POST for one CSV file of the program (then send-many posts the file). */
    batchUpload: (programId: string) =>
      sendJson<BatchUpload>('POST', `${program(programId)}/grant-batch-uploads`),
    checkBatch: (programId: string, body: BatchBody) =>
      sendJson<BatchPreview>('POST', batches(programId), { ...body, dryRun: true }),
    /** Commits a batch, or resumes a stalled one when sent again with the same key. */
    commitBatch: (programId: string, body: BatchBody, idempotencyKey: string) =>
      sendJson<BatchSummary>(
        'POST',
        batches(programId),
        { ...body, dryRun: false },
        { 'Idempotency-Key': idempotencyKey },
      ),
    /** The program's batches, newest first. */
    listBatches: (programId: string, params: Cursor & { limit?: number }) =>
      getJson<Page<BatchSummary>>(`${batches(programId)}${query(params)}`),
    /** Asks a batch to stop: rows not yet sent are not sent; asking again is the same cancel. */
    cancelBatch: (programId: string, batchId: string) =>
      sendJson<BatchSummary>('POST', `${batches(programId)}/${at(batchId)}/cancel`),
    batch: (programId: string, batchId: string, params: Cursor & { status: string }) =>
      getJson<Batch>(`${batches(programId)}/${at(batchId)}${query({ ...params, limit: 100 })}`),
    /** A page of the batch's rows as CSV (the columns a batch reads back) and the next cursor. */
    batchCsv: async (
      programId: string,
      batchId: string,
      params: Cursor & { status: string },
    ): Promise<CsvPage> => {
      const response = await request(
        'GET',
        `${batches(programId)}/${at(batchId)}${query({ ...params, limit: 500 })}`,
        { accept: 'text/csv' },
      )
      return { csv: await response.text(), next: response.headers.get('x-next-cursor') }
    },

    keys: (mode: Mode) =>
      getJson<{ keys: ApiKey[] }>(`${base}/keys${query({ mode })}`).then((r) => r.keys),
    createKey: (body: { mode: Mode; expiresIn?: string }) =>
      sendJson<ApiKey & { secret: string }>('POST', `${base}/keys`, body),
    rollKey: (keyId: string, grace: string) =>
      sendJson<ApiKey & { secret: string; old: ApiKey }>('POST', `${key(keyId)}/roll`, { grace }),
    revokeKey: (keyId: string) => sendJson<ApiKey>('POST', `${key(keyId)}/revoke`),
    /** A key's rate limit in requests a second; null: back to its mode's default. */
    setKeyLimit: (keyId: string, rateLimit: number | null) =>
      sendJson<ApiKey>('PATCH', key(keyId), { rateLimit }),

    members: () => getJson<{ members: Member[] }>(`${base}/members`).then((r) => r.members),
    invite: (body: { email: string; role: Role }) =>
      sendJson<Member>('POST', `${base}/members`, body),
    changeRole: (memberId: string, role: Role) =>
      sendJson<Member>('PATCH', member(memberId), { role }),
    resendInvitation: (memberId: string) => sendJson('POST', `${member(memberId)}/resend`),
    removeMember: (memberId: string) => sendJson('DELETE', member(memberId)),

    grant: (grantId: string) => getJson<Grant>(`${base}/grants/${at(grantId)}`),
    cancelGrant: (grantId: string) =>
      sendJson<Grant>('POST', `${base}/grants/${at(grantId)}/cancel`),
    resendOffer: (grantId: string) =>
      sendJson<Grant>('POST', `${base}/grants/${at(grantId)}/resend`),
    correctEmail: (grantId: string, email: string) =>
      sendJson<Grant>('POST', `${base}/grants/${at(grantId)}/correct-email`, { email }),
    offerSettings: (programId: string, body: OfferSettingsBody) =>
      sendJson<Program>('PATCH', `${program(programId)}/offer-settings`, body),
    offerPreview: (programId: string, body: GrantBody) =>
      sendJson<RenderedMail>('POST', `${program(programId)}/offer-preview`, body),
    inbox: (params: Cursor) =>
      getJson<Page<InboxMessage>>(`${base}/inbox${query({ ...params, limit: 10 })}`),

    webhookEndpoints: (mode: Mode) =>
      getJson<{ endpoints: WebhookEndpoint[] }>(`${endpoints}${query({ mode })}`).then(
        (r) => r.endpoints,
      ),
    webhookEndpoint: (endpointId: string) => getJson<WebhookEndpoint>(endpoint(endpointId)),
    /** A new endpoint and its signing secret, shown this once. */
    createWebhookEndpoint: (body: WebhookEndpointBody & { url: string; mode: Mode }) =>
      sendJson<WebhookEndpoint & { secret: string }>('POST', endpoints, body),
    changeWebhookEndpoint: (endpointId: string, body: WebhookEndpointBody) =>
      sendJson<WebhookEndpoint>('PATCH', endpoint(endpointId), body),
    deleteWebhookEndpoint: (endpointId: string) => sendJson('DELETE', endpoint(endpointId)),
    /** A new secret, shown this once; the old one keeps signing alongside it for 24 hours. */
    rotateWebhookSecret: (endpointId: string) =>
      sendJson<WebhookEndpoint & { secret: string }>(
        'POST',
        `${endpoint(endpointId)}/rotate-secret`,
      ),
    sendTestWebhook: (endpointId: string) =>
      sendJson<{ messageId: string }>('POST', `${endpoint(endpointId)}/test`),
    /** The endpoint's delivery log, newest first, each message with its attempts. */
    webhookMessages: (endpointId: string, params: Cursor & { limit?: number }) =>
      getJson<{ messages: WebhookMessage[]; next?: string | null }>(
        `${endpoint(endpointId)}/messages${query(params)}`,
      ),
    replayWebhookMessage: (endpointId: string, messageId: string) =>
      sendJson<{ messageId: string }>(
        'POST',
        `${endpoint(endpointId)}/messages/${at(messageId)}/replay`,
      ),
    /** Every message since `since` (ISO) sent again, in the background. */
    replayWebhooksSince: (endpointId: string, since: string) =>
      sendJson<{ since: string }>('POST', `${endpoint(endpointId)}/replay`, { since }),

    audit: (params: Cursor) =>
      getJson<{ entries: AuditEntry[]; nextCursor: string | null }>(
        `${base}/audit${query({ ...params, limit: 25 })}`,
      ),
  }
}

export type IssuerApi = ReturnType<typeof issuerApi>
