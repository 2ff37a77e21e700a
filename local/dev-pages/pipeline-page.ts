import * as z from 'zod/mini'
import { localProblem as problem } from '../local-guard'
import { isLoopbackHost, notLoopbackProblem } from '../loopback-host'

/** What the server needs of the local pipeline (local/pipeline.ts). */
export type PipelineControl = {
  status(): unknown
  drain(timeoutMs?: number): Promise<unknown>
  /** Holds or releases a queue's consumer (LocalPipeline.hold); absent: /hold is not served. */
  hold?(queue: string | undefined, hold: boolean, letThrough?: number): unknown
}

/** The longest a caller may ask `/_local/pipeline/drain` to wait. */
const MAX_DRAIN_MS = 60_000

/**
 * The local pipeline's state, for tests against `npm start` (another process): loopback callers
 * only, like /_local/mail, and never in AWS.
 * - `GET /_local/pipeline`: its status (stream records pending, each queue's visible, in-flight and
 *   dead-lettered messages, the consumers plugged in, `idle`).
 * - `POST /_local/pipeline/drain?timeoutMs=`: answers once everything written before the request has
 *   gone through the stream and the queues (200 and the status), or 503 with the status when it has
 *   not after timeoutMs (default 30,000, at most 60,000).
 * - `POST /_local/pipeline/hold {"queue": "GrantBatchRows", "hold": true, "let": 1}`: its consumer
 *   takes no message but the next `let` (default 0), until `{"queue": ..., "hold": false}` (or
 *   `{"hold": false}`, every queue) releases it: a test catches a batch mid-way, exactly. A held
 *   queue does not hold the drain. Answers the status (`held` lists the holds); bad input: 400.
 */
export const servePipeline = async (
  method: string,
  rawPath: string,
  rawQueryString: string,
  host: string | undefined,
  pipeline: PipelineControl | undefined,
  body: Buffer = Buffer.alloc(0),
) => {
  if (pipeline === undefined) return undefined
  if (rawPath === '/_local/pipeline/hold' && pipeline.hold !== undefined) {
    if (!isLoopbackHost(host)) return notLoopbackProblem(rawPath)
    return holdQueue(method, rawPath, body, pipeline.hold.bind(pipeline))
  }
  if (rawPath !== '/_local/pipeline' && rawPath !== '/_local/pipeline/drain') return undefined
  if (!isLoopbackHost(host)) return notLoopbackProblem(rawPath)
  const json = (status: number, body: unknown) => ({
    status,
    type: 'application/json',
    body: `${JSON.stringify(body, null, 2)}\n`,
  })
  if (rawPath === '/_local/pipeline') {
    return method === 'GET' ? json(200, pipeline.status()) : json(405, { message: 'GET only' })
  }
  if (method !== 'POST') return json(405, { message: 'POST only' })
  const asked = new URLSearchParams(rawQueryString).get('timeoutMs')
  const timeoutMs = asked === null ? 30_000 : Number(asked)
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_DRAIN_MS) {
    return json(400, { message: `timeoutMs must be 1-${MAX_DRAIN_MS}` })
  }
  try {
    return json(200, await pipeline.drain(timeoutMs))
  } catch {
    return json(503, pipeline.status())
  }
}

/** The hold's body: hold a queue (letting `let` through), or release one or every queue. */
const HoldBody = z.union([
  z.strictObject({
    queue: z.string(),
    hold: z.literal(true),
    let: z.optional(z.int().check(z.nonnegative())),
  }),
  z.strictObject({ queue: z.optional(z.string()), hold: z.literal(false) }),
])

/** `POST /_local/pipeline/hold`: the body checked, then the hold set (servePipeline). */
const holdQueue = (
  method: string,
  rawPath: string,
  body: Buffer,
  hold: NonNullable<PipelineControl['hold']>,
) => {
  if (method !== 'POST') {
    return problem(405, 'method_not_allowed', 'Method not allowed', `${rawPath} takes POST.`)
  }
  const invalid = (detail: string) => problem(400, 'validation_failed', 'Invalid request', detail)
  let input: unknown
  try {
    input = JSON.parse(body.toString('utf8'))
  } catch {
    input = undefined
  }
  const parsed = HoldBody.safeParse(input)
  if (!parsed.success) {
    return invalid(
      'The body must be {"queue": "<queue id>", "hold": true, "let": n} (n a whole number, default 0) or {"queue"?: "<queue id>", "hold": false}.',
    )
  }
  const given = parsed.data
  try {
    const status = hold(given.queue, given.hold, given.hold ? given.let : undefined)
    return { status: 200, type: 'application/json', body: `${JSON.stringify(status, null, 2)}\n` }
  } catch (error) {
    return invalid(error instanceof Error ? error.message : String(error))
  }
}
