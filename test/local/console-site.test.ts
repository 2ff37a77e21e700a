import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  CognitoIdentityProvider,
  createCognitoClient,
} from '../../functions/identity/cognito-identity-provider'
import {
  CONSOLE_CACHE_CONTROL,
  type ConsoleConfig,
  consoleSecurityHeaders,
} from '../../lib/console-site'
import type { LocalIdentity } from '../../local/cognito-local'
import type { LocalConsoleOptions } from '../../local/dev-pages/console-site'
import type { Mail } from '../../local/mail-sink'
import { expectProblem, request, startApi } from '../support/api'
import { FIXTURE_FILES, makeConsoleDist } from '../support/console-dist'
import { launchNpmStart, type Started, waitFor } from '../support/npm-start'
import { exchange } from './raw-client'

/**
 * The console under the local server (local/dev-pages/console-site.ts), over real sockets: what
 * CloudFront and S3 do in AWS. A fixture build stands in for console/dist, next to a secret no request may
 * reach. Requests go out as raw bytes: fetch would resolve `..`, `%2e%2e` and backslashes itself.
 */
const root = mkdtempSync(join(tmpdir(), 'console-site-'))
const dist = makeConsoleDist(join(root, 'dist'))
const SECRET = 'secret-outside-the-build-3f9x0k'
writeFileSync(join(root, 'secret.txt'), SECRET)
writeFileSync(join(dist, '.env'), SECRET)
symlinkSync(join(root, 'secret.txt'), join(dist, 'assets', 'linked.txt'))
const INDEX = FIXTURE_FILES['index.html']

const EMULATOR = 'http://127.0.0.1:45123'
const pool: Omit<ConsoleConfig, 'grantApiUrl'> = {
  region: 'local',
  userPoolId: 'local_6zsVdDR0',
  userPoolClientId: '5u6rugxyaa0xgmwzhk1ugq2zp',
  cognitoEndpoint: `${EMULATOR}/`,
}
const HEADERS = consoleSecurityHeaders(EMULATOR)

let api: Awaited<ReturnType<typeof startApi>>
// The server reads these on each request: tests change them as npm start does while it starts.
const consoleOptions: LocalConsoleOptions = { dir: dist, identity: pool }
beforeAll(async () => {
  api = await startApi({ options: { console: consoleOptions } })
})
afterAll(() => api.close())

const get = async (path: string, options: { host?: string; method?: string } = {}) => {
  const answer = await exchange(
    api.port,
    `${options.method ?? 'GET'} ${path} HTTP/1.1\r\nHost: ${options.host ?? `127.0.0.1:${api.port}`}\r\nConnection: close\r\n\r\n`,
  )
  return { status: answer.status, headers: answer.headers, body: answer.body }
}

const securityHeadersOf = (headers: Record<string, string>) =>
  Object.fromEntries(Object.keys(HEADERS).map((name) => [name, headers[name]]))

describe('the console at /app/', () => {
  it('serves index.html with the security headers CloudFront sends, revalidated on every load', async () => {
    const page = await get('/app/')
    expect(page.status).toBe(200)
    expect(page.body).toBe(INDEX)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['cache-control']).toBe(CONSOLE_CACHE_CONTROL.pages)
    expect(securityHeadersOf(page.headers)).toEqual(HEADERS)
    // The policy itself, spelled out: the emulator is the one other origin the page may call.
    expect(page.headers['content-security-policy']).toBe(
      `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ${EMULATOR}; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'`,
    )
    expect(page.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains')
    expect(page.headers['x-frame-options']).toBe('DENY')
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.headers['referrer-policy']).toBe('strict-origin-when-cross-origin')
  })

  it.each([
    ['/offer', 'offer.html'],
    ['/holdings', 'holdings.html'],
  ] as const)(
    'serves the recipient page %s (%s) with the same headers, revalidated',
    async (path, file) => {
      const page = await get(path)
      expect({ status: page.status, body: page.body }).toEqual({
        status: 200,
        body: FIXTURE_FILES[file],
      })
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(page.headers['cache-control']).toBe(CONSOLE_CACHE_CONTROL.pages)
      expect(securityHeadersOf(page.headers)).toEqual(HEADERS)
      // Only the exact path: anything under it is no page.
      expect((await get(`${path}/x`)).status).not.toBe(200)
    },
  )

  it('redirects /app to /app/', async () => {
    const answer = await get('/app')
    expect(answer.status).toBe(301)
    expect(answer.headers.location).toBe('/app/')
    expect(securityHeadersOf(answer.headers)).toEqual(HEADERS)
  })

  it.each([
    '/app/programs',
    '/app/programs/prg_1',
    '/app/programs/prg_1/grants?recipient=ann%40example.com',
    '/app/team/',
  ])('answers the page %s with index.html (SPA fallback)', async (path) => {
    const page = await get(path)
    expect({ status: page.status, body: page.body }).toEqual({ status: 200, body: INDEX })
    expect(page.headers['cache-control']).toBe(CONSOLE_CACHE_CONTROL.pages)
    expect(securityHeadersOf(page.headers)).toEqual(HEADERS)
  })

  it('serves hashed assets with their types and immutable caching, other files revalidated', async () => {
    const script = await get('/app/assets/index-Bx1_a-9.js')
    expect(script).toMatchObject({ status: 200, body: FIXTURE_FILES['assets/index-Bx1_a-9.js'] })
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(script.headers['cache-control']).toBe(CONSOLE_CACHE_CONTROL.assets)
    expect(securityHeadersOf(script.headers)).toEqual(HEADERS)
    const style = await get('/app/assets/index-Cy2.css')
    expect(style).toMatchObject({ status: 200, body: FIXTURE_FILES['assets/index-Cy2.css'] })
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8')
    const icon = await get('/app/favicon.svg')
    expect(icon.headers['content-type']).toBe('image/svg+xml')
    expect(icon.headers['cache-control']).toBe(CONSOLE_CACHE_CONTROL.pages)
  })

  it.each([
    '/app/assets/missing.js',
    // Nothing under assets/ is a page, dot or not.
    '/app/assets/missing',
    '/app/missing.png',
    '/app/programs/prg_1/export.csv',
  ])('answers a missing file %s with 404, never with the page', async (path) => {
    const answer = await get(path)
    expect(answer.status).toBe(404)
    expect(answer.body).not.toContain('<html')
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(securityHeadersOf(answer.headers)).toEqual(HEADERS)
  })

  it('answers HEAD like GET without the body, and refuses other methods', async () => {
    const head = await get('/app/', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(INDEX)))
    const post = await get('/app/programs', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
    expect(securityHeadersOf(post.headers)).toEqual(HEADERS)
  })
})

describe('config.json', () => {
  it('holds the emulator’s pool, and the API at the origin the browser used, whatever the build holds', async () => {
    for (const host of [`127.0.0.1:${api.port}`, `localhost:${api.port}`]) {
      const answer = await get('/app/config.json', { host })
      expect(answer.status).toBe(200)
      expect(answer.headers['content-type']).toBe('application/json')
      expect(answer.headers['cache-control']).toBe(CONSOLE_CACHE_CONTROL.pages)
      expect(securityHeadersOf(answer.headers)).toEqual(HEADERS)
      expect(JSON.parse(answer.body)).toEqual({
        grantApiUrl: `http://${host}`,
        region: 'local',
        userPoolId: pool.userPoolId,
        userPoolClientId: pool.userPoolClientId,
        cognitoEndpoint: `${EMULATOR}/`,
      })
    }
    // A Host that is no loopback name (DNS rebinding, or no host name at all) is refused:
    // test/local/loopback-only.test.ts has the cases.
    const odd = await get('/app/config.json', { host: 'a b' })
    expect(odd.status).toBe(403)
    expect(odd.body).not.toContain(pool.userPoolClientId)
  })

  it('answers 503 until the emulator is known, with connect-src limited to the origin', async () => {
    consoleOptions.identity = undefined
    try {
      const answer = await get('/app/config.json')
      expect(answer.status).toBe(503)
      expect(answer.headers['retry-after']).toBe('1')
      expect(answer.headers['content-security-policy']).toContain("connect-src 'self';")
    } finally {
      consoleOptions.identity = pool
    }
  })
})

describe('paths that try to leave the build', () => {
  it.each([
    '/app/../secret.txt',
    '/app/assets/../../secret.txt',
    '/app/%2e%2e/secret.txt',
    '/app/%2E%2E/%2e%2e/secret.txt',
    '/app/..%2fsecret.txt',
    '/app/assets/..%2f..%2fsecret.txt',
    '/app/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
    '/app//secret.txt',
    '/app/assets//..//..//secret.txt',
    '/app/..\\secret.txt',
    '/app/assets\\..\\..\\secret.txt',
    '/app/%5c..%5csecret.txt',
    '/app/.env',
    '/app/./.env',
    '/app/assets/linked.txt',
    '/app/assets/./index-Bx1_a-9.js',
    '/app/assets/%69ndex-Cy2.css',
  ])('%s: 404, nothing outside the build, no dotfile, no symlink out', async (path) => {
    const answer = await get(path)
    expect(answer.status).toBe(404)
    expect(answer.body).not.toContain(SECRET)
    expect(securityHeadersOf(answer.headers)).toEqual(HEADERS)
  })

  it('answers a traversal that looks like a page with the page, not the file', async () => {
    const answer = await get('/app/../../../../etc/passwd')
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: INDEX })
  })
})

describe('without a build', () => {
  it('says how to build the console, and still serves config.json', async () => {
    consoleOptions.dir = mkdtempSync(join(tmpdir(), 'console-missing-'))
    try {
      const page = await get('/app/programs')
      expect(page.status).toBe(503)
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(page.body).toContain('npm run build -w console')
      expect(securityHeadersOf(page.headers)).toEqual(HEADERS)
      expect((await get('/app/config.json')).status).toBe(200)
    } finally {
      consoleOptions.dir = dist
    }
  })
})

describe('the API beside it', () => {
  it('is unchanged: /app is the console only when the server is given one, and / stays the API’s', async () => {
    expectProblem(await request(api.baseUrl, 'GET', '/'), 404, 'route_not_found')
    const bare = await startApi()
    try {
      expectProblem(await request(bare.baseUrl, 'GET', '/app/'), 404, 'route_not_found')
    } finally {
      await bare.close()
    }
  })
})

describe('npm start', () => {
  let started: Started | undefined
  afterEach(async () => {
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGINT')
      await started.exited
    }
  })

  it('prints the console address, serves the build with config.json from its emulator, and links invitations to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vs-local-'))
    started = launchNpmStart(dir, ['--in-memory'], { VS_CONSOLE_DIR: dist })
    const running = started
    await waitFor(
      () => running.output().includes('Ctrl-C stops'),
      'the ready banner',
      running,
      90_000,
    )
    const { baseUrl } = JSON.parse(readFileSync(join(dir, 'seed.json'), 'utf8')) as {
      baseUrl: string
    }
    const port = new URL(baseUrl).port
    expect(running.output()).toContain(`\nConsole: http://localhost:${port}/app/\n`)
    const identity = JSON.parse(readFileSync(join(dir, 'identity.json'), 'utf8')) as LocalIdentity

    const page = await fetch(`http://localhost:${port}/app/programs`)
    expect(page.status).toBe(200)
    expect(await page.text()).toBe(INDEX)
    // The emulator, and the upload receiver (send to many's presigned POSTs), as the bucket in AWS.
    expect(page.headers.get('content-security-policy')).toContain(
      `connect-src 'self' ${identity.endpoint} ${baseUrl};`,
    )
    const config = await fetch(`http://localhost:${port}/app/config.json`)
    const served = (await config.json()) as ConsoleConfig
    expect(served).toEqual({
      grantApiUrl: `http://localhost:${port}`,
      region: 'local',
      userPoolId: identity.userPoolId,
      userPoolClientId: identity.clientId,
      cognitoEndpoint: `${identity.endpoint}/`,
    })
    // The console's "Try it" command calls the grant API there: it answers (in problem+json), not
    // the console.
    const tried = await fetch(`${served.grantApiUrl}/programs/prg_none/grant-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(tried.status).toBe(401)
    expect(tried.headers.get('content-type')).toMatch(/^application\/problem\+json/)

    // Invitations link to it.
    const email = `ann-${randomUUID()}@example.com`
    await new CognitoIdentityProvider(
      createCognitoClient({ endpoint: identity.endpoint }),
      identity.userPoolId,
    ).invite({ email, issuerName: 'Acme' })
    await waitFor(() => running.output().includes(`Mail to ${email}`), 'the mail', running)
    const mails = (await (await fetch(`${baseUrl}/_local/mail.json`)).json()) as Mail[]
    expect(mails.find((mail) => mail.to === email)?.text).toContain(
      `\nhttp://localhost:${port}/app/\n`,
    )
  })
})
