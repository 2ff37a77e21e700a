import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalUploadStore } from '../../functions/stores/uploads.local'
import type { PresignedUpload } from '../../functions/stores/uploads.store'
import type { LocalConsoleOptions } from '../../local/dev-pages/console-site'
import { OffsetClock } from '../../local/offset-clock'
import { createUploadReceiver } from '../../local/upload-receiver'
import { expectProblem, startApi } from '../support/api'
import { makeConsoleDist } from '../support/console-dist'
import { exchange } from './raw-client'

/**
 * The local server's own tools under `/_local/` (local/local-guard.ts), in this process over real
 * HTTP: every page answers a loopback Host only; the upload receiver (S3's stand-in, whose
 * credentials are public) takes a form only from the console's origin, this server's, or no page;
 * a write elsewhere under /_local/ needs its own origin (or none) and JSON; and any request with
 * more than one Host header is answered 400, whichever comes first.
 */
const CONSOLE_ORIGIN = 'http://localhost:4173'
const clock = new OffsetClock()
let drains = 0
let holds = 0
let api: Awaited<ReturnType<typeof startApi>>
const uploads = new LocalUploadStore({ endpoint: () => api.baseUrl })

beforeAll(async () => {
  const consoleOptions: LocalConsoleOptions = {
    dir: makeConsoleDist(join(mkdtempSync(join(tmpdir(), 'local-tools-guard-')), 'dist')),
    identity: {
      region: 'local',
      userPoolId: 'local_pool0000',
      userPoolClientId: 'client-id',
      cognitoEndpoint: 'http://127.0.0.1:45123/',
    },
  }
  api = await startApi({
    options: {
      console: consoleOptions,
      uploads: createUploadReceiver({ store: uploads, allowedOrigins: () => [CONSOLE_ORIGIN] }),
      clock: { clock, sweep: async () => ({ expired: 0 }) },
      pipeline: {
        status: () => ({ idle: true }),
        drain: async () => {
          drains++
          return { idle: true }
        },
        hold: () => {
          holds++
          return { held: {} }
        },
      },
    },
  })
})
afterAll(() => api?.close())

type Sent = { status: number; type: string | undefined; text: string }
/** A request with the Host, Origin and Content-Type chosen (a browser's or a rebinding page's). */
const send = (
  method: string,
  path: string,
  options: { host?: string; origin?: string; contentType?: string; body?: Buffer | string } = {},
) =>
  new Promise<Sent>((resolve, reject) => {
    const headers: Record<string, string> = {}
    if (options.host !== undefined) headers.host = options.host
    if (options.origin !== undefined) headers.origin = options.origin
    if (options.contentType !== undefined) headers['content-type'] = options.contentType
    const req = request({ host: '127.0.0.1', port: api.port, method, path, headers }, (res) => {
      let text = ''
      res.on('data', (chunk) => {
        text += chunk
      })
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], text }),
      )
    })
    req.once('error', reject)
    req.end(options.body)
  })

const expectRefused = (sent: Sent, status: number, code: string) => {
  expect(sent.type).toBe('application/problem+json')
  expectProblem({ status: sent.status, body: JSON.parse(sent.text) }, status, code)
}

/** A presigned POST of the local store, and the browser's multipart form for it. */
const signedForm = async () => {
  const key = `guard/${randomUUID()}.csv`
  const upload: PresignedUpload = await uploads.presign({
    key,
    maxBytes: 1024,
    contentType: 'text/csv',
    expiresInSeconds: 300,
  })
  const form = new FormData()
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value)
  form.append('file', new Blob(['email,amount\r\nann@example.com,1\r\n'], { type: 'text/csv' }))
  const encoded = new Request('http://form.invalid/', { method: 'POST', body: form })
  return {
    key,
    path: new URL(upload.url).pathname,
    contentType: encoded.headers.get('content-type') as string,
    body: Buffer.from(await encoded.arrayBuffer()),
  }
}
const stored = (key: string) => uploads.read(key, 1024)

describe('the upload receiver', () => {
  it("stores a form from the console's origin, from this server's own and from no page at all", async () => {
    for (const origin of [CONSOLE_ORIGIN, `http://127.0.0.1:${api.port}`, undefined]) {
      const form = await signedForm()
      const sent = await send('POST', form.path, { ...form, ...(origin ? { origin } : {}) })
      expect([origin, sent.status]).toEqual([origin, 204])
      expect(await stored(form.key)).toBeDefined()
    }
  })

  it('refuses a form from any other origin, loopback ones included, and stores nothing', async () => {
    for (const origin of [
      'http://evil.test',
      'http://127.0.0.1:9999',
      'http://localhost:9999',
      `https://127.0.0.1:${api.port}`,
      'null',
    ]) {
      const form = await signedForm()
      const sent = await send('POST', form.path, { ...form, origin })
      expect([origin, sent.status]).toEqual([origin, 403])
      expectRefused(sent, 403, 'local-origin-not-allowed')
      expect(await stored(form.key)).toBeUndefined()
    }
  })

  it('refuses a Host that is not a loopback name (DNS rebinding), preflight included, and stores nothing', async () => {
    for (const host of ['evil.test', `evil.test:${api.port}`, '192.0.2.2']) {
      const form = await signedForm()
      const sent = await send('POST', form.path, { ...form, host })
      expect([host, sent.status]).toEqual([host, 403])
      expectRefused(sent, 403, 'local-host-not-loopback')
      expect(await stored(form.key)).toBeUndefined()
    }
    const preflight = await send('OPTIONS', '/_local/uploads/local-uploads', {
      host: 'evil.test',
      origin: 'http://evil.test',
    })
    expectRefused(preflight, 403, 'local-host-not-loopback')
  })
})

describe('the other /_local/ tools', () => {
  const PAGES = [
    '/_local/clock',
    '/_local/pipeline',
    '/_local/pipeline/hold',
    '/_local/mail.json',
    '/_local/uploads/local-uploads',
    '/_local/nothing-here',
  ]

  test.each(PAGES)('GET %s answers only a loopback Host', async (path) => {
    for (const host of ['evil.test', `evil.test:${api.port}`, `10.0.0.1:${api.port}`]) {
      const refused = await send('GET', path, { host })
      expect([host, refused.status]).toEqual([host, 403])
      expectRefused(refused, 403, 'local-host-not-loopback')
    }
    const local = await send('GET', path, { host: `localhost:${api.port}` })
    expect(local.status).not.toBe(403)
  })

  it('take a write from their own origin or no page only, and in JSON (the drain has no body)', async () => {
    const foreign = await send('POST', '/_local/pipeline/drain?timeoutMs=1000', {
      origin: 'http://127.0.0.1:9999',
    })
    expectRefused(foreign, 403, 'local-origin-not-allowed')
    expect(drains).toBe(0)
    const drained = await send('POST', '/_local/pipeline/drain?timeoutMs=1000', {
      origin: `http://127.0.0.1:${api.port}`,
    })
    expect(drained.status).toBe(200)
    expect(drains).toBe(1)
    const form = await send('PUT', '/_local/nothing-here', {
      contentType: 'application/x-www-form-urlencoded',
      body: 'a=1',
    })
    expectRefused(form, 415, 'local-body-not-json')
    const deleted = await send('DELETE', '/_local/nothing-here', { origin: 'http://evil.test' })
    expectRefused(deleted, 403, 'local-origin-not-allowed')
    // The pipeline's hold: JSON from its own origin or none only.
    const body = '{"queue":"GrantBatchRows","hold":true}'
    const json = 'application/json'
    const held = (origin: string, contentType = json) =>
      send('POST', '/_local/pipeline/hold', { origin, contentType, body })
    expectRefused(await held('http://127.0.0.1:9999'), 403, 'local-origin-not-allowed')
    expectRefused(
      await held(`http://127.0.0.1:${api.port}`, 'text/plain'),
      415,
      'local-body-not-json',
    )
    expect(holds).toBe(0)
    expect((await held(`http://127.0.0.1:${api.port}`)).status).toBe(200)
    expect(holds).toBe(1)
  })
})

describe('more than one Host header', () => {
  const raw = (method: string, path: string, hosts: string[], body = '') =>
    exchange(
      api.port,
      `${method} ${path} HTTP/1.1\r\n${hosts.map((h) => `Host: ${h}\r\n`).join('')}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
  const PATHS = ['/_local/mail.json', '/_local/clock', '/app/config.json', '/programs/p/grants/g']

  test.each(PATHS)('%s: 400 problem+json in either order, and nothing moved', async (path) => {
    const offset = clock.offsetMs
    for (const hosts of [
      ['localhost', 'evil.com'],
      ['evil.com', 'localhost'],
      ['localhost', 'localhost'],
    ]) {
      const method = path === '/_local/clock' ? 'POST' : 'GET'
      const answer = await raw(method, path, hosts, method === 'POST' ? '{"advanceMs":1000}' : '')
      expect([hosts, answer.status]).toEqual([hosts, 400])
      expect(answer.headers['content-type']).toBe('application/problem+json')
      expect(answer.headers.connection).toBe('close')
      expectProblem({ status: 400, body: JSON.parse(answer.body) }, 400, 'host-header-repeated')
      expect(answer.body).not.toContain('client-id')
    }
    expect(clock.offsetMs).toBe(offset)
    // One Host: answered as usual.
    expect((await raw('GET', path, ['localhost'])).status).not.toBe(400)
  })
})
