import { randomUUID } from 'node:crypto'
import { PROBLEM_CONTENT_TYPE, problemType } from '../functions/http/problem'

/**
 * Is this Host header a loopback name? `localhost` and `*.localhost` (RFC 6761: browsers resolve
 * them to loopback themselves, never through DNS), `127.x.x.x` and `[::1]`, with or without a port.
 *
 * What the local server keeps for this machine (the mail sink, with temporary passwords and reset
 * codes; the console's config.json) is answered only to these: a web page the developer visits
 * may point its own name at 127.0.0.1 (DNS rebinding) and read same-origin whatever answers to any
 * Host, but the Host it sends is then its own name.
 */
export const isLoopbackHost = (host: string | undefined): boolean => {
  if (host === undefined) return false
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?)(?::\d{1,5})?$/i.exec(host.trim())
  const name = match?.[1]?.toLowerCase().replace(/\.$/, '')
  if (name === undefined) return false
  return (
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    /^127(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(name) ||
    name === '[::1]' ||
    name === '[0:0:0:0:0:0:0:1]'
  )
}

export const LOOPBACK_HOST_NAMES = 'localhost, 127.0.0.1 or [::1]'

/** The refusal: 403, application/problem+json, saying which names are answered. */
export const notLoopbackProblem = (path: string) => ({
  status: 403,
  type: PROBLEM_CONTENT_TYPE,
  body: `${JSON.stringify({
    type: problemType('local-host-not-loopback'),
    title: 'Only answered on a loopback host name',
    status: 403,
    code: 'local-host-not-loopback',
    detail: `${path} is only answered to requests for ${LOOPBACK_HOST_NAMES} (the Host header), so no other site can read it through DNS rebinding.`,
    requestId: randomUUID(),
  })}\n`,
})
