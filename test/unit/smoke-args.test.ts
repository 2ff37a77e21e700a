import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { USAGE } from '../../cli/smoke'
import { consoleBase } from '../../cli/smoke-steps'
import { generateApiKey } from '../../functions/domain/api-key'
import { newId } from '../../functions/domain/ids'
import { runSmokeHere } from '../support/smoke-run'

/**
 * `npm run smoke`'s arguments, in process: a wrong one is one line and exit 1, before anything is
 * sent. A real server listens at --api and counts what reaches it. Runs against `npm start`:
 * test/local/npm-start.test.ts.
 */
let requests = 0
const server = createServer((_req, res) => {
  requests++
  res.writeHead(500).end()
})
let api = ''
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise((r) => server.close(r)))

const TEST_KEY = generateApiKey('TEST')
const PROGRAM = newId('program')

describe('npm run smoke, wrong arguments', () => {
  it.each([
    ['nothing', [], '--api, --key, --program missing.'],
    ['no --program', ['--api', '@api', '--key', TEST_KEY], '--program missing.'],
    [
      'a LIVE key',
      ['--api', '@api', '--key', generateApiKey('LIVE'), '--program', PROGRAM],
      '--key is a LIVE key: the smoke test makes grants, so it runs with a TEST key (vs_test_...) only.',
    ],
    [
      'a LIVE key mistyped',
      ['--api', '@api', '--key', 'vs_live_x', '--program', PROGRAM],
      '--key is a LIVE key: the smoke test makes grants, so it runs with a TEST key (vs_test_...) only.',
    ],
    [
      'a key whose checksum is wrong',
      [
        '--api',
        '@api',
        '--key',
        `${TEST_KEY.slice(0, -1)}${TEST_KEY.endsWith('0') ? '1' : '0'}`,
        '--program',
        PROGRAM,
      ],
      '--key is not an API key (vs_test_ and 30 letters or digits).',
    ],
    [
      'a grant id for --program',
      ['--api', '@api', '--key', TEST_KEY, '--program', newId('grant')],
      '--program is not a program id (prg_ and 26 letters or digits).',
    ],
    [
      'an API that is not a URL',
      ['--api', 'localhost:3000', '--key', TEST_KEY, '--program', PROGRAM],
      '--api must be an http or https URL, not "localhost:3000".',
    ],
    [
      'a console over ftp',
      ['--api', '@api', '--key', TEST_KEY, '--program', PROGRAM, '--console', 'ftp://x/app/'],
      '--console must be an http or https URL, not "ftp://x/app/".',
    ],
    ['an unknown flag', ['--api', '@api', '--stack', 'x'], "Unknown option '--stack'."],
    ['a positional', ['grant'], "Unexpected argument 'grant'."],
  ])('%s: one line, exit 1, nothing sent', async (_, args, line) => {
    const result = await runSmokeHere(args.map((a) => (a === '@api' ? api : a)))
    expect(result).toEqual({ code: 1, stdout: '', stderr: `error: ${line} ${USAGE}\n` })
    expect(requests).toBe(0)
  })

  it('--help: the usage, the steps and the exit codes, exit 0', async () => {
    const result = await runSmokeHere(['--help'])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout.startsWith(`${USAGE}\n`)).toBe(true)
    expect(result.stdout).toContain(
      'Exit codes: 0 passed; 1 wrong arguments (nothing sent); 2 a step failed.',
    )
  })
})

describe("the console's config.json", () => {
  it.each([
    ['https://d1.cloudfront.net', 'https://d1.cloudfront.net/app/'],
    ['https://d1.cloudfront.net/app', 'https://d1.cloudfront.net/app/'],
    ['https://d1.cloudfront.net/app/', 'https://d1.cloudfront.net/app/'],
    ['https://console.example.com/', 'https://console.example.com/app/'],
  ])('is read next to the console of %s', (url, base) => {
    expect(consoleBase(url)).toBe(base)
  })
})
