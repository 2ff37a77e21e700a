import type { AuditEntry } from '../domain/people'
import type {
  EndpointDisabledReason,
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

/** A program's pool-low mark: the crossing it stands for, and whether its event went out. */
export type PoolLowMark = {
  pk: string
  sk: string
  programId: string
  /** When the crossing was seen (ISO): the event's time and part of its id. */
  at: string
  remaining: number
  threshold: number
  /** Set once the event was fanned out: a mark without it is fanned out again (at least once). */
  sent?: true
}

/**
 * What the sender records of an attempt on the endpoint itself:
 * - `success`: `lastSuccessAt`, and the endpoint is no longer failing (`failingSince` removed);
 * - `failure`: `failingSince` set to this attempt's time unless already set (the first failure
 *   since the last success).
 */
export type EndpointOutcome = { kind: 'success'; at: string } | { kind: 'failure'; at: string }

/** The sender's bookkeeping (core/webhook-sender.ts), beyond the endpoints and messages. */
export type WebhookDeliveryStore = {
  /** After an attempt, on condition that the endpoint exists: the endpoint as it now stands. */
  recordEndpointOutcome(
    issuerId: string,
    endpointId: string,
    outcome: EndpointOutcome,
    options?: Options,
  ): Promise<WebhookEndpointRecord | 'missing'>
  /** Turns an enabled endpoint off with its audit entry: `done` for the one caller that did. */
  disableEndpoint(
    issuerId: string,
    endpointId: string,
    input: { reason: EndpointDisabledReason; at: string; failingSince?: string; audit: AuditEntry },
    options?: Options,
  ): Promise<'done' | 'unchanged'>
  /** Claims the automatic attempt a message expects: one attempt for two copies of a delivery. */
  claimAttempt(
    endpointId: string,
    messageId: string,
    input: { nextAttemptAt: string | undefined; now: string; until: string },
    options?: Options,
  ): Promise<'claimed' | 'taken'>
  /** A pending message of a disabled or deleted endpoint: `failed`, no next attempt. */
  failMessage(
    endpointId: string,
    messageId: string,
    options?: Options,
  ): Promise<'done' | 'unchanged'>
  /** Marks a program's pool as low, once per crossing: `fired` for the call that put the mark. */
  markPoolLow(
    input: { programId: string; at: string; remaining: number; threshold: number },
    options?: Options,
  ): Promise<{ outcome: 'fired'; mark: PoolLowMark } | { outcome: 'already'; mark: PoolLowMark }>
  /** Notes that the mark's event was fanned out (only that mark). */
  markPoolLowSent(programId: string, at: string, options?: Options): Promise<void>
  /** Re-arms a program's pool-low event: true if a mark was there. */
  clearPoolLow(programId: string, options?: Options): Promise<boolean>
}
