import * as z from 'zod/mini'
import { idPattern } from '../functions/domain/ids'

/**
 * The builders of openapi.json's answers and bodies, shared by lib/openapi.ts and its parts
 * (lib/openapi-*.ts) so all build a JSON answer, a request body and a problem set the same
 * way. Imports nothing of either (no import cycle).
 */

export type Json = Record<string, unknown>

/** A zod schema as JSON Schema 2020-12, without `$schema` (the document's dialect says it). */
export const jsonSchema = (schema: z.ZodMiniType, io: 'input' | 'output') => {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >
  return rest
}

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })

export const REQUEST_ID = {
  'Request-Id': { $ref: '#/components/headers/RequestId' },
  'x-request-id': { $ref: '#/components/headers/RequestId' },
}

/** The RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11) every integrator answer has. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
}

/** The management routes' security: a member's access token. */
export const BEARER = [{ bearer: [] }]

export const TIME = { type: 'string', format: 'date-time' }

/** A program's or key's mode. */
/** An id as the service makes it (functions/domain/ids.ts): one source for every id's pattern. */
const idSchema = (kind: Parameters<typeof idPattern>[0]) => ({
  type: 'string',
  pattern: idPattern(kind).source,
})
export const ID = {
  issuer: idSchema('issuer'),
  program: idSchema('program'),
  grant: idSchema('grant'),
  apiKey: idSchema('apiKey'),
} as const

/** An ISO 3166-1 alpha-2 country code, as the offer settings and the recipient's answer hold it. */
export const COUNTRY = { type: 'string', pattern: '^[A-Z]{2}$' }

/** The Terms of Virtual Shares: their version (from `minimum`), and their text or a link. */
export const termsSchema = (minimum: 0 | 1, description?: string) => ({
  type: 'object',
  ...(description === undefined ? {} : { description }),
  properties: {
    version: { type: 'integer', minimum },
    text: { type: 'string' },
    url: { type: 'string', format: 'uri' },
  },
  required: ['version'],
})

/** `schema`, or null. */
export const nullable = (schema: Json) => ({ anyOf: [schema, { type: 'null' }] })

export const MODE = { type: 'string', enum: ['TEST', 'LIVE'] }

/** `Cache-Control: no-store`, which every management answer carries (NO_STORE in the handlers). */
export const NO_STORE = {
  'Cache-Control': {
    description: 'Always `no-store`: the answer is for one signed-in person.',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
}

export const jsonContent = (ref: string, example?: unknown) => ({
  'application/json': { schema: schemaRef(ref), ...(example === undefined ? {} : { example }) },
})

/** A required JSON request body. */
export const jsonBody = (ref: string, example?: unknown) => ({
  required: true,
  content: jsonContent(ref, example),
})

/** A management route's answer, with the problems of one that has no conflict or size limit of its own. */
export const manageAnswers = (...answer: Parameters<typeof manageAnswer>) => ({
  '200': manageAnswer(...answer),
  ...manageProblems([400, 401, 403, 404, 500, 503]),
})

/** A JSON answer with its request id (and any further headers). */
export const ok = (
  description: string,
  ref: string,
  example?: unknown,
  headers: Record<string, unknown> = {},
) => ({
  description,
  headers: { ...REQUEST_ID, ...headers },
  content: jsonContent(ref, example),
})

/** A management route's JSON answer: `no-store`, with its request id (and any further headers). */
export const manageAnswer = (...[description, ref, example, headers]: Parameters<typeof ok>) =>
  ok(description, ref, example, { ...NO_STORE, ...headers })

const problemRefs = (prefix: string, statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [String(s), { $ref: `#/components/responses/${prefix}${s}` }]),
  )
/** The integrator routes' problem answers (components/responses/Problem<status>). */
export const problems = (statuses: number[]) => problemRefs('Problem', statuses)
/** The management routes' problem answers (components/responses/ManageProblem<status>). */
export const manageProblems = (statuses: number[]) => problemRefs('ManageProblem', statuses)

/** The path parameters of a program under its issuer (the management routes). */
export const IssuerProgramParameters = [
  { $ref: '#/components/parameters/IssuerId' },
  { $ref: '#/components/parameters/ProgramId' },
]

export const IssuerParameter = { $ref: '#/components/parameters/IssuerId' }

/** An optional query parameter. */
export const query = (name: string, description: string, schema: Json) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
})

/** The opaque `cursor` of a paged list. */
export const cursorParameter = query(
  'cursor',
  'The `nextCursor` of the previous page, as it was given (opaque; anything else is 400 `validation_failed`).',
  { type: 'string' },
)

/** A paged list's `limit`, from the route's own page bounds. */
export const pageParameter = (what: string, page: { default: number; max: number }, extra = '') =>
  query('limit', `${what} per page, 1 to ${page.max} (default ${page.default})${extra}.`, {
    type: 'integer',
    minimum: 1,
    maximum: page.max,
    default: page.default,
  })

export const NULLABLE_CURSOR = {
  anyOf: [{ type: 'string' }, { type: 'null' }],
  description: 'Pass as `cursor` for the next page; null on the last page.',
}

/** A page of a list, `{ object: 'list', data, nextCursor }`; the cursor's schema as each route words it. */
export const pagedList = (
  items: Json,
  nextCursor: Json = { anyOf: [{ type: 'string' }, { type: 'null' }] },
) => ({
  type: 'object',
  properties: {
    object: { type: 'string', const: 'list' },
    data: { type: 'array', items },
    nextCursor,
  },
  required: ['object', 'data', 'nextCursor'],
  additionalProperties: false,
})
