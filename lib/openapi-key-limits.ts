import { CHECK_BOUND_MS } from '../functions/core/access-cache'
import { LEASE_LIFETIME_MS } from '../functions/core/rate-limiter'
import { DEFAULT_RATE_LIMITS, MAX_RATE_LIMIT } from '../functions/domain/rate-limit'
import { ADMIN_WRITE, KEY_EXAMPLE, KeyParameters, NAMED } from './openapi-manage-programs'
import { BEARER, jsonBody, manageAnswer, manageProblems } from './openapi-parts'

/**
 * Part of openapi.json: a key's rate limit (issue 33), `PATCH /manage/issuers/{issuerId}/keys/
 * {keyId}` (functions/routes.ts UpdateKey; functions/http/routes/manage/key-update.route.ts over
 * functions/core/admin-keys.ts setKeyRateLimit), put in the document by lib/openapi.ts.
 * test/manage/key-limits.manage.test.ts holds real answers against it.
 */

type Json = Record<string, unknown>

export const keyLimitPaths: Record<string, Json> = {
  '/manage/issuers/{issuerId}/keys/{keyId}': {
    patch: {
      operationId: 'manageUpdateKey',
      tags: ['Management'],
      summary: "Lower an API key's rate limit, or set it back to the default (admin)",
      description: `\`rateLimit\`: the requests a second the integrator API takes with the key, from 1 to the mode's default (TEST ${DEFAULT_RATE_LIMITS.TEST}, LIVE ${DEFAULT_RATE_LIMITS.LIVE}) or the key's limit now, whichever is higher; \`null\`: back to the mode's default. Only the operator's admin CLI (\`key limit\`) raises a key above that, up to ${MAX_RATE_LIMIT} (the grant route's stage throttle, which still caps every key together). More than you may set is \`400 validation_failed\` naming \`rateLimit\`. The integrator API applies the new limit within ${(CHECK_BOUND_MS + LEASE_LIFETIME_MS) / 1000} s (its key check's ${CHECK_BOUND_MS / 1000} s, then tokens leased under the old limit, spent within ${LEASE_LIFETIME_MS / 1000} s or dropped); its answers' \`RateLimit-Policy\` \`q\` shows it. Only an active key's limit can be changed: a revoked or expired key is \`409 key_state_conflict\`, as is a key changed by someone else between the read and the write; nothing is written then. The same limit again answers the key and writes nothing. The change and its audit entry (\`key.rate_limit\`: \`from\`, \`to\`, \`fromDefault\`, \`toDefault\`) are one transaction. ${NAMED} Another issuer's key, an unknown or a malformed id: \`404 key_not_found\`. ${ADMIN_WRITE}`,
      security: BEARER,
      parameters: KeyParameters,
      requestBody: jsonBody('ApiKeyUpdateRequest', { rateLimit: 10 }),
      responses: {
        '200': manageAnswer('The key with its new limit.', 'ApiKey', {
          ...KEY_EXAMPLE,
          rateLimit: 10,
          rateLimitIsDefault: false,
        }),
        ...manageProblems([400, 401, 403, 404, 409, 413, 415, 500, 503]),
      },
    },
  },
}

export const keyLimitSchemas: Record<string, Json> = {
  ApiKeyUpdateRequest: {
    type: 'object',
    properties: {
      rateLimit: {
        anyOf: [{ type: 'integer', minimum: 1, maximum: MAX_RATE_LIMIT }, { type: 'null' }],
        description:
          "Requests a second; null: the mode's default. A person may set at most the mode's default or the key's limit now, whichever is higher.",
      },
    },
    required: ['rateLimit'],
    additionalProperties: false,
  },
}
