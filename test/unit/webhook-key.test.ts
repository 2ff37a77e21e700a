import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../functions/config'
import { ENV } from '../../functions/env-names'
import { secretBoxFrom } from '../../functions/runtime/secret-box'
import { functionEnvironment } from '../../local/local-env'
import { webhookKeyFile, webhookSecretKey } from '../../local/webhook-key'

/** npm start's webhook key, through the same configuration path bin/local-server.ts takes. */
const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-webhook-key-'))
  dirs.push(dir)
  return join(dir, '.local')
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const boxOf = (env: Record<string, string>) => secretBoxFrom(loadConfig(env).webhooks)
const endpointId = 'we_abcdefghijklmnopqrstuvwxyz'

describe("npm start's webhook key", () => {
  it('is made once in the data folder, readable by its owner only, and read back on the next start', async () => {
    const dir = freshDir()
    const key = webhookSecretKey(dir)
    expect(Buffer.from(key, 'base64')).toHaveLength(32)
    expect(readFileSync(webhookKeyFile(dir), 'utf8')).toBe(`${key}\n`)
    expect(statSync(webhookKeyFile(dir)).mode & 0o777).toBe(0o600)

    // A secret sealed in one run opens in the next: the same key, through loadConfig.
    const firstRun = boxOf(functionEnvironment('http://127.0.0.1:1', undefined, key))
    const sealed = await firstRun.seal('whsec_AAAA', { endpointId })
    const secondRun = boxOf(
      functionEnvironment('http://127.0.0.1:1', undefined, webhookSecretKey(dir)),
    )
    expect(webhookSecretKey(dir)).toBe(key)
    expect(await secondRun.open(sealed, { endpointId })).toBe('whsec_AAAA')

    // Another folder, another key: its box cannot open this one's secrets.
    const elsewhere = boxOf(
      functionEnvironment('http://127.0.0.1:1', undefined, webhookSecretKey(freshDir())),
    )
    await expect(elsewhere.open(sealed, { endpointId })).rejects.toThrow('could not be opened')
  })

  it('tightens a key file left readable by others, and refuses one that is not a key', () => {
    const dir = freshDir()
    const key = webhookSecretKey(dir)
    chmodSync(webhookKeyFile(dir), 0o644)
    expect(webhookSecretKey(dir)).toBe(key)
    expect(statSync(webhookKeyFile(dir)).mode & 0o777).toBe(0o600)

    writeFileSync(webhookKeyFile(dir), 'not a key\n')
    expect(() => webhookSecretKey(dir)).toThrow(
      `${webhookKeyFile(dir)} is not a webhook key (32 bytes in base64); delete it to make a new one`,
    )
  })

  it('without a given key, the local environment allows loopback receivers and uses one key per process', async () => {
    const first = functionEnvironment('http://127.0.0.1:1')
    const second = functionEnvironment('http://127.0.0.1:2')
    expect(first[ENV.webhookAllowLoopback]).toBe('true')
    expect(first[ENV.webhookLocalSecretKey]).toBe(second[ENV.webhookLocalSecretKey])
    expect(Buffer.from(String(first[ENV.webhookLocalSecretKey]), 'base64')).toHaveLength(32)
    expect(loadConfig(first).webhooks).toEqual({
      kmsKeyId: undefined,
      localSecretKey: first[ENV.webhookLocalSecretKey],
      allowLoopback: true,
    })
    const sealed = await boxOf(first).seal('whsec_AAAA', { endpointId })
    expect(await boxOf(second).open(sealed, { endpointId })).toBe('whsec_AAAA')
  })
})
