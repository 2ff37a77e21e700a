import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { newIssuer, postGrant } from '../support/api'
import { useApi } from '../support/api-harness'
import { catchLines } from '../support/request-log-lines'
import { PROJECT_ROOT } from '../support/synth'

/**
 * docs/deploying.md "Cost", the request log: the bytes of the line a real grant's route prints
 * (`recordRequest`'s default sink: no flusher here, so the line is printed as in Lambda), with a
 * Lambda function's identity as AWS gives it, against the figure that page states.
 */

const api = useApi()

it('states in docs/deploying.md the bytes of a real request line, as Lambda would ingest it', async () => {
  const issuer = await newIssuer({ pool: 10 })
  const caught = catchLines()
  const lines: string[] = []
  const answer = await postGrant(api.baseUrl, issuer.programs.LIVE, issuer.keys.LIVE, undefined, {
    'idempotency-key': '3f2b8c1e-9d4a-4e7b-8c6f-1a2b3c4d5e6f',
  }).finally(() => lines.push(...caught.stop()))
  expect(answer.status).toBe(201)
  // The line the sink would print in Lambda: the same entry, with a function's identity in AWS.
  const local = lines.map((line) => JSON.parse(line)).find((line) => line.requestLog)
  expect(local).toMatchObject({ message: 'request', requestLog: { status: 201 } })
  const name = 'VirtualShares-prod-GrantTokensFunction-Ab3dEf6hIj9K'
  const inAws = {
    ...local,
    function_name: name,
    function_arn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    function_memory_size: '512',
  }
  const bytes = Buffer.byteLength(`${JSON.stringify(inAws)}\n`)
  const page = readFileSync(join(PROJECT_ROOT, 'docs', 'deploying.md'), 'utf8')
  const stated = Number(
    page.match(/the request line with its entry[^|]*?about ([\d,]+) bytes/)?.[1],
  )
  // "About": within 5% of what is measured here (the test's ids and key are as long as real ones).
  expect({ bytes, stated, near: Math.abs(bytes - stated) <= bytes * 0.05 }).toMatchObject({
    near: true,
  })
})
