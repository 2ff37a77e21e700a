import { lookup as dnsLookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP, type LookupFunction } from 'node:net'
import { WEBHOOK_LIMITS } from '../domain/webhooks'

/**
 * The webhook sender's HTTP client (issue 21, Safety): an integrator names the URL, so the URL
 * must not reach inside our network. Each post resolves the host once, refuses it when any of its
 * addresses is private, loopback (unless allowed, under npm start), link-local, shared, mapped or
 * a metadata address, and connects to the very address it checked (no second lookup, so DNS
 * rebinding cannot swap it). One timeout covers resolving, connecting, the headers and the body;
 * redirects are never followed; at most a few KB of the body are read.
 */

export type Resolver = (host: string) => Promise<{ address: string; family: 4 | 6 }[]>

export type WebhookHttpError =
  | 'timeout'
  | 'connection'
  | 'refused_address'
  | 'redirect'
  | 'tls'
  | 'dns'
  | 'invalid_url'

export type WebhookHttpResult = {
  status?: number
  error?: WebhookHttpError
  latencyMs: number
  /** The first WEBHOOK_LIMITS.responseKeptChars characters of the body, when there was one. */
  response?: string
  /** From `Retry-After` (seconds or an HTTP date) on 429 and 503. */
  retryAfterSeconds?: number
}

export type WebhookHttpOptions = {
  /** Loopback receivers (127.0.0.0/8, ::1): npm start and tests only. Nothing else is ever allowed. */
  allowLoopback: boolean
  resolve?: Resolver
  timeoutMs?: number
  readBytes?: number
  /**
   * Trust this CA instead of Node's roots: tests' self-signed receivers in-process (a spawned
   * process trusts one through NODE_EXTRA_CA_CERTS, which Node adds to its roots).
   */
  ca?: string | Buffer
}

export type WebhookHttp = {
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
  ): Promise<WebhookHttpResult>
}

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }))

// ---- Addresses -------------------------------------------------------------------------------

type Range = readonly [bytes: readonly number[], prefixBits: number, reason: string]

/** IPv4 ranges no webhook may reach; the first match names the reason. */
const V4_REFUSED: readonly Range[] = [
  [[169, 254, 169, 254], 32, 'metadata'],
  [[0], 8, 'unspecified'],
  [[10], 8, 'private'],
  [[100, 64], 10, 'shared'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'reserved'],
  [[192, 0, 2], 24, 'reserved'],
  [[192, 88, 99], 24, 'reserved'],
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'reserved'],
  [[198, 51, 100], 24, 'reserved'],
  [[203, 0, 113], 24, 'reserved'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
]

/** IPv6 ranges refused outright (6to4 and anything outside global unicast are handled below). */
const V6_REFUSED: readonly Range[] = [
  // The EC2 instance metadata service's IPv6 address.
  [[0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54], 128, 'metadata'],
  [[], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 'ipv4-mapped'],
  [[], 96, 'ipv4-compatible'],
  // NAT64 (well-known and local-use prefixes): a path to any IPv4 address behind a translator.
  [[0, 0x64, 0xff, 0x9b], 96, 'nat64'],
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, 'nat64'],
  [[0x01], 64, 'reserved'],
  // Teredo tunnels to an IPv4 address of the client's choosing.
  [[0x20, 0x01, 0, 0], 32, 'teredo'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'],
  [[0xfc], 7, 'unique-local'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'reserved'],
  [[0xff], 8, 'multicast'],
]

const inRange = (address: readonly number[], [prefix, bits]: Range) => {
  for (let bit = 0; bit < bits; bit += 8) {
    const mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff
    if (((address[bit / 8] ?? 0) & mask) !== ((prefix[bit / 8] ?? 0) & mask)) return false
  }
  return true
}

const v4Bytes = (ip: string) => ip.split('.').map(Number)

/** 16 bytes of a valid IPv6 address (`::` and a trailing dotted quad allowed). */
const v6Bytes = (ip: string) => {
  const groups = (part: string) => {
    if (part === '') return []
    const out: number[] = []
    for (const group of part.split(':')) {
      if (group.includes('.')) {
        const [a = 0, b = 0, c = 0, d = 0] = v4Bytes(group)
        out.push((a << 8) | b, (c << 8) | d)
      } else out.push(Number.parseInt(group, 16))
    }
    return out
  }
  const [head = '', tail] = ip.split('::')
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const words = [...left, ...Array(8 - left.length - right.length).fill(0), ...right]
  return words.flatMap((word: number) => [word >> 8, word & 0xff])
}

const refusedV4 = (bytes: readonly number[]) =>
  V4_REFUSED.find((range) => inRange(bytes, range))?.[2]

/**
 * Why a webhook may not be sent to this address (`loopback` is the one reason npm start waives),
 * or undefined when it is a public unicast address.
 */
export const refusedAddress = (ip: string): string | undefined => {
  // A zone (`fe80::1%eth0`) only ever comes with a link-local address; classify the address.
  const address = ip.split('%')[0] ?? ''
  const family = isIP(address)
  if (family === 4) return refusedV4(v4Bytes(address))
  if (family !== 6) return 'not an IP address'
  const bytes = v6Bytes(address.toLowerCase())
  const reason = V6_REFUSED.find((range) => inRange(bytes, range))?.[2]
  if (reason) return reason
  // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits: refused when that one is.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) {
    const embedded = refusedV4(bytes.slice(2, 6))
    return embedded && `6to4 of ${embedded}`
  }
  // Only global unicast (2000::/3) is routed on the internet.
  return ((bytes[0] ?? 0) & 0xe0) === 0x20 ? undefined : 'reserved'
}

// ---- Posting ---------------------------------------------------------------------------------

const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'HOSTNAME_MISMATCH',
])

const errorOf = (error: unknown): WebhookHttpError => {
  const code = String((error as { code?: unknown })?.code ?? '')
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') return 'dns'
  if (code === 'ETIMEDOUT') return 'timeout'
  if (TLS_CODES.has(code) || /^ERR_(TLS|SSL)_/.test(code) || code.includes('CERT')) return 'tls'
  return 'connection'
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export const retryAfterSeconds = (value: string | undefined, now = Date.now()) => {
  const text = value?.trim()
  if (!text) return undefined
  if (/^\d+$/.test(text)) return Number(text)
  // Every HTTP-date form starts with the day's name; Date.parse alone would take '-5' as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000))
}

const withResult = <T>(promise: Promise<T>, onTimeout: Promise<never>) =>
  Promise.race([promise, onTimeout])

/** The URL's target and host (an IPv6 literal without brackets), or undefined: not http(s). */
const parseTarget = (url: string): { target: URL; host: string } | undefined => {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return undefined
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return undefined
  }
  // WHATWG URL keeps an IPv6 literal's brackets in hostname.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  if (!host) return undefined
  return { target, host }
}

/**
 * One deadline for everything: resolving, connecting, the headers and the body; it also ends
 * when `signal` aborts. `timedOut` rejects then.
 */
const startDeadline = (timeoutMs: number, signal: AbortSignal | undefined) => {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), timeoutMs)
  const abort = () => deadline.abort()
  signal?.addEventListener('abort', abort, { once: true })
  if (signal?.aborted) deadline.abort()
  const timedOut = new Promise<never>((_, reject) => {
    const fail = () => reject(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }))
    if (deadline.signal.aborted) fail()
    else deadline.signal.addEventListener('abort', fail, { once: true })
  })
  timedOut.catch(() => {})
  return { deadline, timer, abort, timedOut }
}

/** The POST to the checked address only, on a fresh connection, within the deadline. */
const requestOptions = (
  target: URL,
  host: string,
  headers: Record<string, string>,
  payload: Buffer,
  lookup: LookupFunction,
  signal: AbortSignal,
  ca: string | Buffer | undefined,
  literal: number,
) => {
  const https = target.protocol === 'https:'
  const options: RequestOptions & { servername?: string; ca?: string | Buffer } = {
    method: 'POST',
    host,
    port: target.port || (https ? 443 : 80),
    path: `${target.pathname}${target.search}`,
    headers: {
      'content-type': 'application/json',
      ...headers,
      host: target.host,
      'content-length': String(payload.length),
    },
    lookup,
    // A fresh connection each time: a pooled one could outlive the address it was checked for.
    agent: false,
    signal,
    ...(https ? { ca, ...(literal ? {} : { servername: host }) } : {}),
  }
  if (target.username || target.password) {
    options.auth = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
  }
  return options
}

/** Reads the body into `chunks` up to `readBytes` (the rest is never read), by the deadline. */
const readCapped = (
  response: IncomingMessage,
  readBytes: number,
  chunks: Buffer[],
  timedOut: Promise<never>,
) => {
  let read = 0
  return withResult(
    new Promise<void>((resolveBody, reject) => {
      let complete = false
      response.on('data', (chunk: Buffer) => {
        const wanted = Math.min(chunk.length, readBytes - read)
        if (wanted > 0) chunks.push(chunk.subarray(0, wanted))
        read += wanted
        // The cap reached: the rest is never read.
        if (read >= readBytes) {
          complete = true
          resolveBody()
          response.destroy()
        }
      })
      response.on('end', () => {
        complete = true
        resolveBody()
      })
      response.on('error', reject)
      response.on('close', () => {
        if (!complete) reject(Object.assign(new Error('closed'), { code: 'ECONNRESET' }))
      })
    }),
    timedOut,
  )
}

export const makeWebhookHttp = ({
  allowLoopback,
  resolve = systemResolver,
  timeoutMs = WEBHOOK_LIMITS.timeoutMs,
  readBytes = WEBHOOK_LIMITS.responseReadBytes,
  ca,
}: WebhookHttpOptions): WebhookHttp => {
  const refused = (address: string) => {
    const reason = refusedAddress(address)
    return reason === 'loopback' && allowLoopback ? undefined : reason
  }

  const post: WebhookHttp['post'] = async (url, headers, body, signal) => {
    const started = performance.now()
    const done = (result: Omit<WebhookHttpResult, 'latencyMs'>): WebhookHttpResult => ({
      ...result,
      latencyMs: Math.round(performance.now() - started),
    })

    const parsed = parseTarget(url)
    if (!parsed) return done({ error: 'invalid_url' })
    const { target, host } = parsed

    const { deadline, timer, abort, timedOut } = startDeadline(timeoutMs, signal)

    try {
      let addresses: { address: string; family: 4 | 6 }[]
      const literal = isIP(host)
      if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
      else {
        try {
          addresses = await withResult(resolve(host), timedOut)
        } catch {
          return done({ error: deadline.signal.aborted ? 'timeout' : 'dns' })
        }
      }
      if (addresses.some(({ address }) => refused(address))) {
        return done({ error: 'refused_address' })
      }
      // The checked address, and only it: Node asks this instead of DNS.
      const [checked] = addresses
      if (!checked) return done({ error: 'dns' })
      const lookup: LookupFunction = (_hostname, options, callback) => {
        if (options.all) callback(null, [checked])
        else callback(null, checked.address, checked.family)
      }

      const payload = Buffer.from(body)
      const https = target.protocol === 'https:'
      const options = requestOptions(
        target,
        host,
        headers,
        payload,
        lookup,
        deadline.signal,
        ca,
        literal,
      )

      const response = await withResult(
        new Promise<IncomingMessage>((resolveResponse, reject) => {
          const request = (https ? httpsRequest : httpRequest)(options, resolveResponse)
          request.on('error', reject)
          request.end(payload)
        }),
        timedOut,
      )
      const status = response.statusCode
      const chunks: Buffer[] = []
      let bodyError: WebhookHttpError | undefined
      try {
        await readCapped(response, readBytes, chunks, timedOut)
      } catch (error) {
        bodyError = deadline.signal.aborted ? 'timeout' : errorOf(error)
      } finally {
        if (!response.destroyed) response.destroy()
      }
      const text = Buffer.concat(chunks).toString('utf8').slice(0, WEBHOOK_LIMITS.responseKeptChars)
      const retryAfter =
        status === 429 || status === 503
          ? retryAfterSeconds(response.headers['retry-after'])
          : undefined
      const redirect = status !== undefined && status >= 300 && status < 400
      return done({
        status,
        ...(bodyError ? { error: bodyError } : redirect ? { error: 'redirect' } : {}),
        ...(text ? { response: text } : {}),
        ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
      })
    } catch (error) {
      return done({ error: deadline.signal.aborted ? 'timeout' : errorOf(error) })
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', abort)
    }
  }
  return { post }
}
