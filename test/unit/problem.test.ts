import * as z from 'zod/mini'
import * as errors from '../../functions/domain/errors'
import { ERROR_CODES, problemResponse } from '../../functions/http/problem'
import * as requestErrors from '../../functions/http/request-errors'

const awsError = (name: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${name} happened at arn:aws:dynamodb:secret-table`), { name, ...extra })

describe('error mapping', () => {
  it.each([
    [new errors.ValidationFailed([{ field: 'amount', message: 'bad' }]), 400, 'validation_failed'],
    [new requestErrors.MalformedJson('x'), 400, 'malformed_json'],
    [new errors.InvalidIdempotencyKey('x'), 400, 'invalid_idempotency_key'],
    [new errors.MissingApiKey(), 401, 'missing_api_key'],
    [new errors.InvalidApiKey(), 401, 'invalid_api_key'],
    [new errors.Unauthenticated(), 401, 'unauthenticated'],
    [new errors.ModeMismatch('LIVE', 'TEST'), 403, 'mode_mismatch'],
    [new errors.Forbidden('viewer', 'admin'), 403, 'forbidden'],
    [new errors.IssuerNotFound('iss_x'), 404, 'issuer_not_found'],
    [new errors.KeyNotFound('key_x'), 404, 'key_not_found'],
    [new errors.MemberNotFound('m'), 404, 'member_not_found'],
    [new errors.LastOwner(), 409, 'last_owner'],
    [new errors.ProgramNotFound('prg_x'), 404, 'program_not_found'],
    [new errors.GrantNotFound('gr_x'), 404, 'grant_not_found'],
    [new requestErrors.RouteNotFound('GET', '/x'), 404, 'route_not_found'],
    [new requestErrors.MethodNotAllowed('PUT', '/x', ['POST']), 405, 'method_not_allowed'],
    [new errors.ProgramInactive('paused'), 409, 'program_inactive'],
    [new errors.PoolExhausted(0, 1), 409, 'pool_exhausted'],
    [new errors.RequestConflict(), 409, 'request_conflict'],
    [new requestErrors.PayloadTooLarge(10), 413, 'payload_too_large'],
    [new requestErrors.UnsupportedMediaType(), 415, 'unsupported_media_type'],
    [new errors.IdempotencyKeyReused(), 422, 'idempotency_key_reused'],
    [new errors.ServiceUnavailable(), 503, 'service_unavailable'],
    [new errors.RateLimited(25, 2), 429, 'rate_limited'],
  ])('%p is %i %s as RFC 9457 problem+json', (error, status, code) => {
    const { response, problem } = problemResponse(error, 'req-1')
    expect(response.statusCode).toBe(status)
    expect(response.headers?.['content-type']).toBe('application/problem+json')
    expect(JSON.parse(response.body as string)).toEqual(problem)
    // The public catalogue (README, OpenAPI) knows this code, with this status.
    expect(ERROR_CODES[code as errors.ErrorCode]).toBe(status)
    expect(problem).toMatchObject({
      type: `urn:virtual-shares:problem:${code}`,
      status,
      code,
      requestId: 'req-1',
      title: expect.any(String),
      detail: expect.any(String),
    })
  })

  it('gives retryable errors a Retry-After header and no others', () => {
    expect(
      problemResponse(new errors.ServiceUnavailable(), 'r').response.headers?.['retry-after'],
    ).toBe('1')
    expect(
      problemResponse(new errors.RequestConflict(), 'r').response.headers?.['retry-after'],
    ).toBe('1')
    expect(
      problemResponse(new errors.PoolExhausted(0, 1), 'r').response.headers?.['retry-after'],
    ).toBeUndefined()
  })

  it('turns a ZodError into a 400 listing each field, never a 500', () => {
    const result = z.strictObject({ amount: z.number() }).safeParse({ amount: 'x', extra: 1 })
    const { problem } = problemResponse(result.error, 'r')
    expect(problem.status).toBe(400)
    expect(problem.errors?.map((e) => e.field).sort()).toEqual(['amount', 'extra'])
  })

  it.each([
    awsError('ProvisionedThroughputExceededException'),
    awsError('ThrottlingException'),
    awsError('RequestLimitExceeded'),
    awsError('InternalServerError'),
    awsError('TimeoutError'),
    awsError('Whatever', { $metadata: { httpStatusCode: 503 } }),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
  ])('maps DynamoDB unavailability %p to 503 with Retry-After', (error) => {
    const { response, problem } = problemResponse(error, 'r')
    expect(problem.code).toBe('service_unavailable')
    expect(response.headers?.['retry-after']).toBe('1')
    expect(response.body).not.toContain('arn:aws')
  })

  it('maps transaction conflicts outside a transaction to a retryable 409', () => {
    expect(problemResponse(awsError('TransactionConflictException'), 'r').problem.code).toBe(
      'request_conflict',
    )
  })

  it('answers unknown errors with a generic 500 that leaks nothing', () => {
    const error = awsError('ValidationException', { $metadata: { httpStatusCode: 400 } })
    const { response, problem, known } = problemResponse(error, 'r')
    expect(known).toBe(false)
    expect(problem).toMatchObject({ status: 500, code: 'internal_error' })
    expect(response.body).not.toMatch(/ValidationException|arn:aws|stack|at /)
  })
})
