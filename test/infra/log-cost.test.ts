import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { logger } from '../../functions/runtime/logger'
import { newIssuer, postGrant, startApi } from '../support/api'
import { type CfnResource, PROJECT_ROOT, resourcesOfType, synth } from '../support/synth'

/**
 * docs/deploying.md "Cost", log ingestion: the bytes one successful grant writes to CloudWatch
 * Logs, measured from what the code writes (the real handler's request line, the template's access
 * log format), against the figures that page states.
 */

/** A CloudFormation-generated function name in a stage: `<stack>-<logical id>-<12 random>`. */
const FUNCTION_NAME = 'VirtualShares-prod-GrantTokensFunction-Ab3dEf6hIj9K'
const REQUEST_ID = '8f5c1f2e-3b4a-4c5d-9e6f-0a1b2c3d4e5f'

/** Lambda's own lines per invocation, in its text log format (what the functions use). */
const PLATFORM_LINES = [
  `START RequestId: ${REQUEST_ID} Version: $LATEST\n`,
  `END RequestId: ${REQUEST_ID}\n`,
  `REPORT RequestId: ${REQUEST_ID}\tDuration: 23.45 ms\tBilled Duration: 24 ms\tMemory Size: 512 MB\tMax Memory Used: 112 MB\t\n`,
]

/** What API Gateway puts in for each `$context` variable of the access log, for a typical grant. */
const TYPICAL_CONTEXT: Record<string, string> = {
  '$context.requestId': 'Ab3dEf6hIj9KLmA=',
  '$context.requestTimeEpoch': '1764158400123',
  '$context.identity.sourceIp': '203.0.113.42',
  '$context.httpMethod': 'POST',
  '$context.routeKey': 'POST /programs/{programId}/grant-tokens',
  '$context.status': '201',
  '$context.responseLength': '412',
  '$context.responseLatency': '31',
  '$context.integrationLatency': '27',
  '$context.integrationStatus': '200',
  '$context.integrationErrorMessage': '-',
  '$context.error.message': '-',
  '$context.error.responseType': '-',
  '$context.identity.userAgent': 'virtual-shares-client/1.0 node/22.11.0',
}

/** The log table of docs/deploying.md "Cost" and its price, as numbers. */
const statedFigures = () => {
  const page = readFileSync(join(PROJECT_ROOT, 'docs', 'deploying.md'), 'utf8')
  const cost = page.split('\n## Cost\n')[1]?.split('\n## ')[0] ?? ''
  const row = (pattern: RegExp) => {
    const match = cost.match(pattern)
    if (!match?.[1]) throw new Error(`docs/deploying.md "Cost" has no row ${pattern}`)
    return Number(match[1].replace(/,/g, ''))
  }
  const price = cost.match(/ingest about ([\d.]+) GB: about \*\*\$([\d.]+)\*\*/)
  return {
    request: row(/the function's request line[^|]*\| 1 \| about ([\d,]+) \|/),
    platform: row(/`START`, `END` and `REPORT` lines \| 3 \| about ([\d,]+) \|/),
    access: row(/the API's access log line[^|]*\| 1 \| about ([\d,]+) \|/),
    total: row(/\*\*per grant\*\* \| 5 \| \*\*about ([\d,]+)\*\*/),
    gbPerMillion: Number(price?.[1]),
    dollarsPerMillion: Number(price?.[2]),
  }
}

const api = { baseUrl: '', close: async () => {} }
beforeAll(async () => Object.assign(api, await startApi()))
afterAll(() => api.close())

/** The request line the real grant handler writes for one successful grant, as Lambda would. */
const requestLine = async () => {
  const issuer = await newIssuer({ pool: 10 })
  const written: string[] = []
  const write = process.stdout.write.bind(process.stdout)
  const level = logger.getLevelName()
  logger.setLogLevel('INFO')
  process.stdout.write = ((chunk: string | Uint8Array) => {
    written.push(String(chunk))
    return true
  }) as typeof process.stdout.write
  try {
    const answer = await postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.LIVE, undefined, {
      'idempotency-key': `log-cost-${process.pid}`,
    })
    expect(answer.status).toBe(201)
  } finally {
    process.stdout.write = write
    logger.setLogLevel(level)
  }
  const lines = written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === 'request')
  expect(lines).toHaveLength(1)
  const [line] = lines as [Record<string, unknown>]
  // One line: the request log's entry (issue 33), which says what the route's line would.
  expect(line).toMatchObject({
    requestLog: { status: 201, route: 'POST /programs/{programId}/grant-tokens' },
  })
  expect(line).not.toHaveProperty('status')
  // The function's identity as Lambda gives it in AWS, not the local server's.
  const inAws = {
    ...line,
    function_name: FUNCTION_NAME,
    function_arn: `arn:aws:lambda:us-east-1:123456789012:function:${FUNCTION_NAME}`,
    function_memory_size: '512',
    function_request_id: REQUEST_ID,
  }
  return `${JSON.stringify(inAws)}\n`
}

it('matches the bytes per grant and the price per million grants docs/deploying.md states', async () => {
  const stated = statedFigures()
  const request = Buffer.byteLength(await requestLine())
  const platform = PLATFORM_LINES.reduce((sum, line) => sum + Buffer.byteLength(line), 0)
  const [, stage] = resourcesOfType(synth().json, 'AWS::ApiGatewayV2::Stage')[0] as [
    string,
    CfnResource,
  ]
  const format = (stage.Properties.AccessLogSettings as { Format: string }).Format
  const access = Buffer.byteLength(
    `${format.replace(/\$context\.[A-Za-z.]+/g, (name) => {
      const value = TYPICAL_CONTEXT[name]
      if (value === undefined) throw new Error(`no typical value for ${name} of the access log`)
      return value
    })}\n`,
  )
  const total = request + platform + access
  // "About": within 5% of what is measured here.
  const about = (measured: number, figure: number) =>
    expect({ measured, figure, near: Math.abs(measured - figure) <= measured * 0.05 }).toEqual({
      measured,
      figure,
      near: true,
    })
  about(request, stated.request)
  about(platform, stated.platform)
  about(access, stated.access)
  about(total, stated.total)
  // A million grants at $0.50 per GB ingested.
  const gb = (total * 1_000_000) / 1e9
  expect(Math.abs(gb - stated.gbPerMillion)).toBeLessThanOrEqual(0.02)
  expect(Math.abs(gb * 0.5 - stated.dollarsPerMillion)).toBeLessThanOrEqual(0.02)
})
