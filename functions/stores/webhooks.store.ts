import type { AuditEntry } from '../domain/people'
import type {
  WebhookAttempt,
  WebhookEndpointRecord,
  WebhookMessageRecord,
  WebhookMessageStatus,
} from '../domain/webhooks'

/**
 * The webhooks table (functions/table-schema.ts `webhooks`), as the use cases see it:
 * outcomes, never HTTP (as members.store.ts). Implemented by webhooks.dynamodb.ts. Every method
 * takes `{ signal }` (the request's or the invocation's deadline).
 */
type Options = { signal?: AbortSignal }

export type WebhookEndpointStore = {
  /** Every endpoint of the issuer (both modes), oldest first; strongly consistent. */
  listEndpoints(issuerId: string, options?: Options): Promise<WebhookEndpointRecord[]>
  getEndpoint(
    issuerId: string,
    endpointId: string,
    options?: Options,
  ): Promise<WebhookEndpointRecord | undefined>
  /**
   * Puts a new endpoint with its audit entry and counts it in its mode (one transaction):
   * `exists` if the id is taken, `limit` if the mode already has `limit` endpoints.
   */
  createEndpoint(
    endpoint: WebhookEndpointRecord,
    audit: AuditEntry,
    limit: number,
    options?: Options,
  ): Promise<'done' | 'exists' | 'limit'>
  /**
   * Replaces the endpoint on condition that its `version` is still `expectedVersion` (the caller
   * passes the new record with `version` bumped), with the audit entry when there is one.
   */
  replaceEndpoint(
    endpoint: WebhookEndpointRecord,
    expectedVersion: number,
    audit: AuditEntry | undefined,
    options?: Options,
  ): Promise<'done' | 'stale' | 'missing'>
  /** Deletes the endpoint with its audit entry, and uncounts it in its mode (one transaction). */
  deleteEndpoint(
    endpoint: Pick<WebhookEndpointRecord, 'issuerId' | 'endpointId' | 'mode'>,
    audit: AuditEntry,
    options?: Options,
  ): Promise<'done' | 'missing'>
}

export type WebhookMessageStore = {
  /** Puts a message unless one with its id exists (a repeated event): `exists` then. */
  putMessage(message: WebhookMessageRecord, options?: Options): Promise<'done' | 'exists'>
  getMessage(
    endpointId: string,
    messageId: string,
    options?: Options,
  ): Promise<WebhookMessageRecord | undefined>
  /** Appends an attempt and sets the status (and the next attempt's time, or removes it). */
  recordAttempt(
    endpointId: string,
    messageId: string,
    attempt: WebhookAttempt,
    next: { status: WebhookMessageStatus; nextAttemptAt?: string },
    options?: Options,
  ): Promise<'done' | 'missing'>
  /**
   * An endpoint's messages, newest first (`since`: only those at or after that time, ISO), a page
   * at a time: `cursor` is the previous page's `next`.
   */
  listMessages(
    endpointId: string,
    query: { limit: number; cursor?: string; since?: string; oldestFirst?: boolean },
    options?: Options,
  ): Promise<{ messages: WebhookMessageRecord[]; next?: string }>
}
