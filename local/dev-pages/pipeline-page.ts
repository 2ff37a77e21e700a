import { isLoopbackHost, notLoopbackProblem } from '../loopback-host'

/** What the server needs of the local pipeline (local/pipeline.ts). */
export type PipelineControl = {
  status(): unknown
  drain(timeoutMs?: number): Promise<unknown>
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
 */
export const servePipeline = async (
  method: string,
  rawPath: string,
  rawQueryString: string,
  host: string | undefined,
  pipeline: PipelineControl | undefined,
) => {
  if (rawPath !== '/_local/pipeline' && rawPath !== '/_local/pipeline/drain') return undefined
  if (pipeline === undefined) return undefined
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
