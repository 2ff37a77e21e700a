/** Every failure the client reports: an answer from the API, or no usable answer at all. */
export class GrantApiError extends Error {
  constructor(
    /** HTTP status; 0 when no answer arrived (network error, timeout, deadline). */
    readonly status: number,
    /** The API's stable `code`, or network_error / attempt_timeout / deadline_exceeded. */
    readonly code: string,
    readonly detail: string,
    /** True when the same request, with the same Idempotency-Key, may still succeed later. */
    readonly retryable: boolean,
    readonly requestId?: string,
    readonly errors?: { field: string; message: string }[],
  ) {
    super(`${status || 'no answer'} ${code}: ${detail}`)
    this.name = 'GrantApiError'
  }
}
