export { GrantApiError } from './errors.js'
export {
  type Balance,
  type CallOptions,
  type Grant,
  GrantClient,
  type GrantClientOptions,
  type GrantDetail,
  type GrantRequest,
  type GrantResult,
  type Mode,
  type Program,
  type RetryPolicy,
} from './grant-client.js'
export {
  type DeadLetter,
  GrantQueue,
  JsonlFileStore,
  type QueueRecord,
  type QueueStore,
} from './queue.js'
export {
  parseRateLimit,
  parseRateLimitPolicy,
  type QuotaPolicy,
  type RateLimitState,
  type ServiceLimit,
} from './rate-limit.js'
export type { Sleep } from './send.js'
