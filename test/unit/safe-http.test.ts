import { lookup } from 'node:dns/promises'
import { once } from 'node:events'
import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { Webhook } from 'standardwebhooks'
import { generateWebhookSecret, webhookHeaders } from '../../functions/domain/webhook-signature'
import { WEBHOOK_LIMITS } from '../../functions/domain/webhooks'
import {
  makeWebhookHttp,
  type Resolver,
  refusedAddress,
  retryAfterSeconds,
} from '../../functions/runtime/safe-http'
import { selfSignedCert } from '../support/self-signed-cert'

/**
 * The webhook sender's HTTP client against real loopback receivers (node:http and node:https
 * with a certificate made for the run). The URL's host is `receiver.test`, which DNS never
 * resolves: only the injected resolver does, so a request that arrives proves the client
 * connected to the address it checked.
 */

type Received = { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }

const servers: Server[] = []
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections()
    server.close()
  }
})

const receiver = async (
  handler: (req: IncomingMessage, res: ServerResponse, received: Received) => void,
  server: Server = createServer(),
  address = '127.0.0.1',
) => {
  const requests: Received[] = []
  const listener: RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const received = {
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      }
      requests.push(received)
      handler(req, res, received)
    })
  }
  server.on('request', listener)
  server.listen(0, address)
  await once(server, 'listening')
  servers.push(server)
  const { port } = server.address() as AddressInfo
  return { port, requests, server }
}

/** A resolver standing in for DNS: answers from a list, one answer per call, counting calls. */
const resolver = (...answers: string[][]) => {
  const calls: string[] = []
  const resolve: Resolver = async (host) => {
    calls.push(host)
    const answer = answers[Math.min(calls.length, answers.length) - 1] ?? []
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return { resolve, calls }
}

const loopback = () => resolver(['127.0.0.1'])
const json = JSON.stringify({ type: 'webhook.test', timestamp: '2026-11-26T23:00:00.000Z' })

describe('posting a webhook to a real receiver', () => {
  it('sends the signed body to the checked address with the URL host, path and query; reads the answer', async () => {
    const secret = generateWebhookSecret()
    const verified: unknown[] = []
    const { port, requests } = await receiver((_req, res, { headers, body }) => {
      verified.push(new Webhook(secret).verify(body, headers as Record<string, string>))
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks')
    })
    const dns = loopback()
    const http = makeWebhookHttp({ allowLoopback: true, resolve: dns.resolve })
    const headers = webhookHeaders({
      id: 'msg_1',
      timestamp: Math.floor(Date.now() / 1000),
      body: json,
      secrets: [secret],
    })
    const result = await http.post(`http://receiver.test:${port}/hooks/in?x=1`, headers, json)

    expect(result).toEqual({ status: 200, response: 'thanks', latencyMs: expect.any(Number) })
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
    expect(dns.calls).toEqual(['receiver.test'])
    expect(requests).toHaveLength(1)
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/hooks/in?x=1', body: json })
    expect(requests[0]?.headers).toMatchObject({
      host: `receiver.test:${port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(json)),
      'webhook-id': 'msg_1',
    })
    expect(verified).toEqual([JSON.parse(json)])
  })

  it('records 500 and 410 with the start of their bodies, and no error of its own', async () => {
    const { port } = await receiver((req, res) => {
      if (req.url === '/gone') res.writeHead(410).end('endpoint removed')
      else res.writeHead(500).end('boom')
    })
    const http = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve })
    expect(await http.post(`http://receiver.test:${port}/`, {}, json)).toEqual({
      status: 500,
      response: 'boom',
      latencyMs: expect.any(Number),
    })
    expect(await http.post(`http://receiver.test:${port}/gone`, {}, json)).toEqual({
      status: 410,
      response: 'endpoint removed',
      latencyMs: expect.any(Number),
    })
  })

  it('reads Retry-After on 429 (seconds) and 503 (an HTTP date), and only there', async () => {
    const inNinety = new Date(Date.now() + 90_000).toUTCString()
    const { port } = await receiver((req, res) => {
      if (req.url === '/429') res.writeHead(429, { 'retry-after': '120' }).end()
      else if (req.url === '/503') res.writeHead(503, { 'retry-after': inNinety }).end()
      else if (req.url === '/429-bad') res.writeHead(429, { 'retry-after': 'soon' }).end()
      else res.writeHead(500, { 'retry-after': '30' }).end()
    })
    const http = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve })
    const at = (path: string) => http.post(`http://receiver.test:${port}${path}`, {}, json)

    expect(await at('/429')).toEqual({
      status: 429,
      retryAfterSeconds: 120,
      latencyMs: expect.any(Number),
    })
    const unavailable = await at('/503')
    expect(unavailable.status).toBe(503)
    // An HTTP date has whole seconds: 90 s ahead, less the part of a second it dropped.
    expect(unavailable.retryAfterSeconds).toBeGreaterThanOrEqual(88)
    expect(unavailable.retryAfterSeconds).toBeLessThanOrEqual(90)
    expect((await at('/429-bad')).retryAfterSeconds).toBeUndefined()
    expect((await at('/500')).retryAfterSeconds).toBeUndefined()
  })

  it('parses Retry-After against a given clock: seconds, a date, a date in the past, garbage', () => {
    const now = Date.parse('2026-11-26T23:00:00Z')
    expect(retryAfterSeconds('0', now)).toBe(0)
    expect(retryAfterSeconds(' 7 ', now)).toBe(7)
    expect(retryAfterSeconds('Thu, 26 Nov 2026 23:05:00 GMT', now)).toBe(300)
    expect(retryAfterSeconds('Thu, 26 Nov 2026 22:05:00 GMT', now)).toBe(0)
    expect(retryAfterSeconds('-5', now)).toBeUndefined()
    expect(retryAfterSeconds('later', now)).toBeUndefined()
    expect(retryAfterSeconds(undefined, now)).toBeUndefined()
  })

  it('gives up at its timeout on a receiver that never answers, or that stalls its body', async () => {
    const { port } = await receiver((req, res) => {
      if (req.url === '/stall-body') {
        res.writeHead(200, { 'content-length': '100' })
        res.write('partial')
      }
      // Otherwise: never answer.
    })
    const http = makeWebhookHttp({
      allowLoopback: true,
      resolve: loopback().resolve,
      timeoutMs: 300,
    })
    const silent = await http.post(`http://receiver.test:${port}/`, {}, json)
    expect(silent).toEqual({ error: 'timeout', latencyMs: expect.any(Number) })
    expect(silent.latencyMs).toBeGreaterThanOrEqual(290)

    const stalled = await http.post(`http://receiver.test:${port}/stall-body`, {}, json)
    expect(stalled).toEqual({
      status: 200,
      error: 'timeout',
      response: 'partial',
      latencyMs: expect.any(Number),
    })
  })

  it('counts a resolver that hangs against the same timeout, and stops when the caller aborts', async () => {
    const hanging = makeWebhookHttp({
      allowLoopback: true,
      resolve: () => new Promise(() => {}),
      timeoutMs: 200,
    })
    expect(await hanging.post('http://receiver.test/', {}, json)).toEqual({
      error: 'timeout',
      latencyMs: expect.any(Number),
    })

    const { port, requests } = await receiver(() => {})
    const http = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve })
    const caller = new AbortController()
    const pending = http.post(`http://receiver.test:${port}/`, {}, json, caller.signal)
    while (requests.length === 0) await new Promise((r) => setTimeout(r, 10))
    caller.abort()
    expect(await pending).toEqual({ error: 'timeout', latencyMs: expect.any(Number) })
  })

  it('never follows a redirect: the 3xx is recorded as a redirect', async () => {
    const { port, requests } = await receiver((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: '/elsewhere' }).end('see there')
      else res.writeHead(200).end('followed')
    })
    const http = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve })
    expect(await http.post(`http://receiver.test:${port}/moved`, {}, json)).toEqual({
      status: 302,
      error: 'redirect',
      response: 'see there',
      latencyMs: expect.any(Number),
    })
    expect(requests.map((r) => r.url)).toEqual(['/moved'])
  })

  it('reads a 1 MB answer only up to the cap and keeps its first characters', async () => {
    const big = Array.from({ length: 1024 * 1024 }, (_, i) =>
      String.fromCharCode(97 + (i % 26)),
    ).join('')
    const closed: boolean[] = []
    const { port } = await receiver((req, res) => {
      if (req.url === '/big') res.writeHead(200).end(big)
      else {
        // Exactly the cap, then nothing more, ever: a client reading past the cap would wait.
        res.writeHead(200, { 'content-length': String(big.length) })
        res.write(big.slice(0, WEBHOOK_LIMITS.responseReadBytes))
        res.on('close', () => closed.push(res.writableFinished))
      }
    })
    const http = makeWebhookHttp({
      allowLoopback: true,
      resolve: loopback().resolve,
      timeoutMs: 5_000,
    })
    const result = await http.post(`http://receiver.test:${port}/big`, {}, json)
    expect(result).toEqual({
      status: 200,
      response: big.slice(0, WEBHOOK_LIMITS.responseKeptChars),
      latencyMs: expect.any(Number),
    })
    expect(WEBHOOK_LIMITS.responseKeptChars).toBe(500)

    const capped = await http.post(`http://receiver.test:${port}/held`, {}, json)
    expect(capped).toEqual({
      status: 200,
      response: big.slice(0, 500),
      latencyMs: expect.any(Number),
    })
    // The client hung up on the receiver rather than waiting for the rest.
    while (closed.length === 0) await new Promise((r) => setTimeout(r, 10))
    expect(closed).toEqual([false])

    const small = makeWebhookHttp({
      allowLoopback: true,
      resolve: loopback().resolve,
      readBytes: 10,
    })
    expect((await small.post(`http://receiver.test:${port}/big`, {}, json)).response).toBe(
      big.slice(0, 10),
    )
  })

  it('maps a refused connection, a failing resolver and an empty answer', async () => {
    const { port, server } = await receiver(() => {})
    server.close()
    await once(server, 'close')
    const http = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve })
    expect(await http.post(`http://receiver.test:${port}/`, {}, json)).toEqual({
      error: 'connection',
      latencyMs: expect.any(Number),
    })

    const notFound = makeWebhookHttp({
      allowLoopback: true,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND receiver.test'), { code: 'ENOTFOUND' })
      },
    })
    expect((await notFound.post('http://receiver.test/', {}, json)).error).toBe('dns')
    const empty = makeWebhookHttp({ allowLoopback: true, resolve: async () => [] })
    expect((await empty.post('http://receiver.test/', {}, json)).error).toBe('dns')
  })

  it('resolves with the system resolver by default (localhost, from the hosts file)', async () => {
    // Listen where the system resolver's first answer for localhost points (127.0.0.1 or ::1).
    const [first] = await lookup('localhost', { all: true, verbatim: true })
    const { port, requests } = await receiver(
      (_req, res) => res.writeHead(204).end(),
      createServer(),
      first?.address,
    )
    const http = makeWebhookHttp({ allowLoopback: true })
    expect(await http.post(`http://localhost:${port}/`, {}, json)).toEqual({
      status: 204,
      latencyMs: expect.any(Number),
    })
    expect(requests[0]?.headers.host).toBe(`localhost:${port}`)
    expect(
      (await makeWebhookHttp({ allowLoopback: false }).post(`http://localhost:${port}/`, {}, json))
        .error,
    ).toBe('refused_address')
  })

  it('refuses URLs that are not http or https', async () => {
    const dns = loopback()
    const http = makeWebhookHttp({ allowLoopback: true, resolve: dns.resolve })
    for (const url of [
      'not a url',
      'ftp://receiver.test/',
      'file:///etc/passwd',
      'gopher://receiver.test:70/',
      'ws://receiver.test/',
      'data:text/plain,hi',
      '//receiver.test/',
    ]) {
      expect(await http.post(url, {}, json)).toEqual({
        error: 'invalid_url',
        latencyMs: expect.any(Number),
      })
    }
    expect(dns.calls).toEqual([])
  })
})

describe('https receivers', () => {
  const pem = selfSignedCert({ dns: ['receiver.test'] })
  const other = selfSignedCert({ dns: ['someone-else.test'] })

  const httpsReceiver = async (cert: { key: string; cert: string }) => {
    const server = createHttpsServer(cert)
    const names: (string | false)[] = []
    server.on('secureConnection', (socket: TLSSocket) => names.push(socket.servername ?? false))
    const started = await receiver((_req, res) => res.writeHead(200).end('secure'), server)
    return { ...started, names }
  }

  it("verifies the receiver's certificate against the URL's host name, sent as SNI", async () => {
    const { port, names, requests } = await httpsReceiver(pem)
    const http = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve, ca: pem.cert })
    expect(await http.post(`https://receiver.test:${port}/`, {}, json)).toEqual({
      status: 200,
      response: 'secure',
      latencyMs: expect.any(Number),
    })
    expect(names).toEqual(['receiver.test'])
    expect(requests[0]?.headers.host).toBe(`receiver.test:${port}`)
  })

  it('refuses the same receiver without its CA, a certificate for another name, and plain http on an https URL', async () => {
    const { port, requests } = await httpsReceiver(pem)
    const untrusting = makeWebhookHttp({ allowLoopback: true, resolve: loopback().resolve })
    expect(await untrusting.post(`https://receiver.test:${port}/`, {}, json)).toEqual({
      error: 'tls',
      latencyMs: expect.any(Number),
    })

    const impostor = await httpsReceiver(other)
    const trusting = makeWebhookHttp({
      allowLoopback: true,
      resolve: loopback().resolve,
      ca: [pem.cert, other.cert].join('\n'),
    })
    expect((await trusting.post(`https://receiver.test:${impostor.port}/`, {}, json)).error).toBe(
      'tls',
    )

    const plain = await receiver((_req, res) => res.writeHead(200).end())
    expect((await trusting.post(`https://receiver.test:${plain.port}/`, {}, json)).error).toBe(
      'tls',
    )
    expect([...requests, ...impostor.requests, ...plain.requests]).toEqual([])
  })
})

describe('which addresses a webhook may reach', () => {
  const refused: [string, string][] = [
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'ipv4-mapped'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped'],
    ['0:0:0:0:0:ffff:0a00:0001', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::a00:1', 'ipv4-compatible'],
    ['64:ff9b::10.0.0.1', 'nat64'],
    ['64:ff9b::a9fe:a9fe', 'nat64'],
    ['64:ff9b::8.8.8.8', 'nat64'],
    ['64:ff9b:1::1', 'nat64'],
    ['2002:a00:1::1', '6to4 of private'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:a9fe:a9fe::1', '6to4 of metadata'],
    ['2001:0:4136:e378::1', 'teredo'],
    ['2001:db8::1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['receiver.test', 'not an IP address'],
    ['', 'not an IP address'],
  ]
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '11.0.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.255.255',
    '169.255.0.1',
    '192.167.255.255',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2002:808:808::1',
    '2600::',
  ]

  it.each(refused)('refuses %s (%s)', (address, reason) => {
    expect(refusedAddress(address)).toBe(reason)
  })

  it.each(allowed)('allows the public address %s', (address) => {
    expect(refusedAddress(address)).toBeUndefined()
  })

  it('refuses before connecting when any resolved address is refused; loopback only when allowed', async () => {
    const { port, requests } = await receiver((_req, res) => res.writeHead(200).end())
    const cases: [boolean, string[]][] = [
      [false, ['127.0.0.1']],
      [false, ['::1']],
      [false, ['93.184.216.34', '10.0.0.1']],
      [true, ['10.0.0.5']],
      [true, ['169.254.169.254']],
      [true, ['fd00:ec2::254']],
      [true, ['::ffff:127.0.0.1']],
      [true, ['127.0.0.1', '192.168.0.1']],
      [true, ['127.0.0.1', '100.64.0.1']],
    ]
    for (const [allowLoopback, answer] of cases) {
      const dns = resolver(answer)
      const http = makeWebhookHttp({ allowLoopback, resolve: dns.resolve })
      expect({ answer, ...(await http.post(`http://receiver.test:${port}/`, {}, json)) }).toEqual({
        answer,
        error: 'refused_address',
        latencyMs: expect.any(Number),
      })
      expect(dns.calls).toHaveLength(1)
    }
    expect(requests).toEqual([])
  })

  it('checks an IP literal the same way, without asking the resolver', async () => {
    const { port, requests } = await receiver((_req, res) => res.writeHead(200).end('literal'))
    const dns = loopback()
    const strict = makeWebhookHttp({ allowLoopback: false, resolve: dns.resolve })
    const local = makeWebhookHttp({ allowLoopback: true, resolve: dns.resolve })
    for (const url of [
      `http://127.0.0.1:${port}/`,
      `http://2130706433:${port}/`,
      `http://0x7f.1:${port}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'https://10.1.2.3/',
    ]) {
      expect((await strict.post(url, {}, json)).error).toBe('refused_address')
    }
    expect((await local.post(`http://[::ffff:127.0.0.1]:${port}/`, {}, json)).error).toBe(
      'refused_address',
    )
    expect(await local.post(`http://127.0.0.1:${port}/`, {}, json)).toEqual({
      status: 200,
      response: 'literal',
      latencyMs: expect.any(Number),
    })
    expect(requests.map((r) => r.headers.host)).toEqual([`127.0.0.1:${port}`])
    expect(dns.calls).toEqual([])
  })

  it('resolves once per post and connects to the address it checked (DNS rebinding)', async () => {
    const { port, requests } = await receiver((_req, res) => res.writeHead(200).end('first'))
    // First answer: loopback (allowed here). Every later answer: the metadata service.
    const dns = resolver(['127.0.0.1'], ['169.254.169.254'])
    const http = makeWebhookHttp({ allowLoopback: true, resolve: dns.resolve })

    const first = await http.post(`http://receiver.test:${port}/`, {}, json)
    expect(first).toEqual({ status: 200, response: 'first', latencyMs: expect.any(Number) })
    expect(dns.calls).toEqual(['receiver.test'])
    expect(requests.map((r) => r.headers.host)).toEqual([`receiver.test:${port}`])

    const second = await http.post(`http://receiver.test:${port}/`, {}, json)
    expect(second.error).toBe('refused_address')
    expect(dns.calls).toEqual(['receiver.test', 'receiver.test'])
    expect(requests).toHaveLength(1)
  })
})
