import { TransactionCanceledException } from '@aws-sdk/client-dynamodb'
import { grantBody, newIssuer, postGrant, programState, request } from '../support/api'
import { useApi } from '../support/api-harness'
import { dynamodb } from '../support/runtime'

const api = useApi()

/**
 * Fault injection on the real client: a middleware just above the wire makes DynamoDB calls
 * fail the way AWS fails them. The SDK's own retries still run over it.
 */
const injectFault = (makeError: (command: string) => Error | undefined) => {
  const name = `fault-${Math.random()}`
  let injected = 0
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const error = makeError(context.commandName ?? '')
      if (error) {
        injected++
        throw error
      }
      return next(args)
    },
    { step: 'deserialize', name },
  )
  return { count: () => injected, stop: () => dynamodb.middlewareStack.remove(name) }
}

const throttling = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ProvisionedThroughputExceededException',
    $fault: 'client',
    $metadata: { httpStatusCode: 400 },
  })

describe('DynamoDB throttled or unavailable', () => {
  it.each([
    ['throttled on every attempt', throttling],
    [
      'unreachable',
      () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    ],
    [
      'cancelling the transaction for throttling',
      (command: string) =>
        command !== 'TransactWriteItemsCommand'
          ? undefined
          : new TransactionCanceledException({
              message: 'Transaction cancelled',
              $metadata: { httpStatusCode: 400 },
              CancellationReasons: [
                { Code: 'None' },
                { Code: 'ThrottlingError' },
                { Code: 'None' },
              ],
            }),
    ],
  ] as [string, (command: string) => Error | undefined][])(
    'answers 503 with Retry-After when %s, and writes nothing',
    async (_, makeError) => {
      const issuer = await newIssuer({ pool: 10 })
      const headers = { 'idempotency-key': `outage-${Math.random()}` }
      const before = await programState(issuer.programs.TEST)
      const fault = injectFault(makeError)
      let call: Awaited<ReturnType<typeof postGrant>>
      try {
        call = await postGrant(
          api.baseUrl,
          issuer.programs.TEST,
          issuer.keys.TEST,
          grantBody(),
          headers,
        )
      } finally {
        fault.stop()
      }
      expect(fault.count()).toBeGreaterThan(0)
      expect(call.status).toBe(503)
      expect(call.headers.get('retry-after')).toBe('1')
      expect(call.headers.get('content-type')).toBe('application/problem+json')
      expect(call.body.code).toBe('service_unavailable')
      const after = await programState(issuer.programs.TEST)
      expect(after.grants.length).toBe(before.grants.length)
      expect(after.issued).toBe(before.issued)

      // The integrator's retry with the same key, once DynamoDB is back, grants exactly once.
      const retry = await postGrant(
        api.baseUrl,
        issuer.programs.TEST,
        issuer.keys.TEST,
        grantBody(),
        headers,
      )
      expect(retry.status).toBe(201)
      expect((await programState(issuer.programs.TEST)).grants.length).toBe(
        before.grants.length + 1,
      )
    },
  )

  it('rides out a short throttle through the SDK retries', async () => {
    const issuer = await newIssuer()
    let failures = 1
    const fault = injectFault((command) =>
      command === 'TransactWriteItemsCommand' && failures-- > 0 ? throttling() : undefined,
    )
    try {
      const call = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
      expect(call.status).toBe(201)
    } finally {
      fault.stop()
    }
    expect(fault.count()).toBe(1)
  })

  it('answers a GET with 503 when DynamoDB is away', async () => {
    const issuer = await newIssuer()
    const created = await postGrant(api.baseUrl, issuer.programs.TEST, issuer.keys.TEST)
    const fault = injectFault(throttling)
    try {
      const call = await request(api.baseUrl, 'GET', created.headers.get('location') as string, {
        headers: { 'x-api-key': issuer.keys.TEST },
      })
      expect(call.status).toBe(503)
      expect(call.headers.get('retry-after')).toBe('1')
    } finally {
      fault.stop()
    }
  })
})
