import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { KMSClient } from '@aws-sdk/client-kms'
import type { Config } from '../../functions/config'
import { generateWebhookSecret } from '../../functions/domain/webhook-signature'
import { localSecretBox, type SecretBox, secretBoxFrom } from '../../functions/runtime/secret-box'

const endpointId = 'we_abcdefghijklmnopqrstuvwxyz'
const otherEndpoint = 'we_zyxwvutsrqponmlkjihgfedcba'
const key = () => randomBytes(32).toString('base64')
const webhooks = (given: Partial<Config['webhooks']>): Config['webhooks'] => ({
  kmsKeyId: undefined,
  localSecretKey: undefined,
  allowLoopback: false,
  ...given,
})

const refusal = async (box: SecretBox, sealed: string, id = endpointId) => {
  try {
    await box.open(sealed, { endpointId: id })
  } catch (error) {
    return (error as Error).message
  }
  return 'opened'
}

describe('the local secret box (AES-256-GCM, the endpoint id as associated data)', () => {
  it('seals and opens a secret, differently each time, never showing it', async () => {
    const box = localSecretBox(key())
    const secret = generateWebhookSecret()
    const first = await box.seal(secret, { endpointId })
    const second = await box.seal(secret, { endpointId })
    expect(first).toMatch(/^local:[A-Za-z0-9+/]+=*$/)
    expect(first).not.toBe(second)
    expect(first).not.toContain(secret.slice(6))
    expect(Buffer.from(first.slice(6), 'base64').toString('latin1')).not.toContain(secret)
    expect(await box.open(first, { endpointId })).toBe(secret)
    expect(await box.open(second, { endpointId })).toBe(secret)
  })

  it("refuses another endpoint's id, another key, a changed byte and a cut value, loudly and without the secret", async () => {
    const k = key()
    const box = localSecretBox(k)
    const secret = generateWebhookSecret()
    const sealed = await box.seal(secret, { endpointId })
    const refused =
      'A webhook secret could not be opened: wrong endpoint or key, or a changed value'

    expect(await refusal(box, sealed, otherEndpoint)).toBe(refused)
    expect(await refusal(localSecretBox(key()), sealed)).toBe(refused)
    const bytes = Buffer.from(sealed.slice(6), 'base64')
    for (const at of [0, 12, 28, bytes.length - 1]) {
      const changed = Buffer.from(bytes)
      changed[at] = (changed[at] ?? 0) ^ 1
      expect(await refusal(box, `local:${changed.toString('base64')}`)).toBe(refused)
    }
    expect(
      await refusal(box, `local:${bytes.subarray(0, bytes.length - 1).toString('base64')}`),
    ).toBe(refused)
    expect(await refusal(box, 'local:AAAA')).toBe('A webhook secret could not be opened: too short')
    expect(await refusal(box, 'kms:AAAA')).toBe(
      'A webhook secret could not be opened: it was sealed with kms',
    )
    expect(await refusal(box, secret)).toBe(
      'A webhook secret could not be opened: not a sealed value',
    )
    // Still opens with the right id and key.
    expect(await localSecretBox(k).open(sealed, { endpointId })).toBe(secret)
  })

  it('is what secretBoxFrom gives without a KMS key; a malformed key fails at once; no key fails at first use', async () => {
    const k = key()
    const box = secretBoxFrom(webhooks({ localSecretKey: k, allowLoopback: true }))
    const sealed = await box.seal('whsec_x', { endpointId })
    expect(await localSecretBox(k).open(sealed, { endpointId })).toBe('whsec_x')

    for (const bad of ['short', randomBytes(16).toString('base64'), `${k}!`]) {
      expect(() => secretBoxFrom(webhooks({ localSecretKey: bad, allowLoopback: true }))).toThrow(
        'WEBHOOK_LOCAL_SECRET_KEY must be 32 bytes in base64',
      )
    }

    const none = secretBoxFrom(webhooks({ allowLoopback: false }))
    await expect(none.seal('whsec_x', { endpointId })).rejects.toThrow(
      'Webhook secrets cannot be sealed: set WEBHOOK_KMS_KEY_ID',
    )
    await expect(none.open(sealed, { endpointId })).rejects.toThrow(
      'Webhook secrets cannot be opened: set WEBHOOK_KMS_KEY_ID',
    )
  })
})

/**
 * A loopback server that answers KMS's JSON protocol (Encrypt, Decrypt) as KMS does: the blob is
 * bound to the key and the encryption context, and anything else is InvalidCiphertextException.
 */
const fakeKms = async () => {
  const master = randomBytes(32)
  const requests: {
    target?: string
    headers: IncomingHttpHeaders
    body: Record<string, unknown>
  }[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>
      const target = req.headers['x-amz-target'] as string | undefined
      requests.push({ target, headers: req.headers, body })
      const answer = (status: number, json: unknown) =>
        res
          .writeHead(status, { 'content-type': 'application/x-amz-json-1.1' })
          .end(JSON.stringify(json))
      const aad = (keyId: unknown, context: unknown) =>
        Buffer.from(JSON.stringify([keyId, context]))
      if (target === 'TrentService.Encrypt') {
        const iv = randomBytes(12)
        const cipher = createCipheriv('aes-256-gcm', master, iv)
        cipher.setAAD(aad(body.KeyId, body.EncryptionContext))
        const plaintext = Buffer.from(String(body.Plaintext), 'base64')
        const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()])
        const blob = Buffer.concat([Buffer.from(`${body.KeyId}|`), iv, cipher.getAuthTag(), sealed])
        answer(200, { CiphertextBlob: blob.toString('base64'), KeyId: body.KeyId })
      } else if (target === 'TrentService.Decrypt') {
        const blob = Buffer.from(String(body.CiphertextBlob), 'base64')
        const bar = blob.indexOf('|')
        const keyId = blob.subarray(0, bar).toString()
        const rest = blob.subarray(bar + 1)
        try {
          if (body.KeyId !== undefined && body.KeyId !== keyId) throw new Error('key')
          const decipher = createDecipheriv('aes-256-gcm', master, rest.subarray(0, 12))
          decipher.setAAD(aad(keyId, body.EncryptionContext))
          decipher.setAuthTag(rest.subarray(12, 28))
          const plain = Buffer.concat([decipher.update(rest.subarray(28)), decipher.final()])
          answer(200, { Plaintext: plain.toString('base64'), KeyId: keyId })
        } catch {
          answer(400, { __type: 'InvalidCiphertextException', message: '' })
        }
      } else answer(400, { __type: 'UnknownOperationException' })
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return { endpoint: `http://127.0.0.1:${port}`, requests, close: () => server.close() }
}

describe('the KMS secret box, through the SDK client', () => {
  const keyId = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab'
  let kms: Awaited<ReturnType<typeof fakeKms>>
  const logged: string[] = []
  const logger = {
    debug: (...args: unknown[]) => logged.push(JSON.stringify(args)),
    info: (...args: unknown[]) => logged.push(JSON.stringify(args)),
    warn: (...args: unknown[]) => logged.push(JSON.stringify(args)),
    error: (...args: unknown[]) => logged.push(JSON.stringify(args)),
    trace: (...args: unknown[]) => logged.push(JSON.stringify(args)),
  }
  const client = () =>
    new KMSClient({
      endpoint: kms.endpoint,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-only' },
      logger,
      maxAttempts: 1,
    })

  beforeAll(async () => {
    kms = await fakeKms()
  })
  afterAll(() => kms.close())

  it('seals with Encrypt under the key and the endpoint as context, opens with Decrypt, and logs no secret', async () => {
    const box = secretBoxFrom(webhooks({ kmsKeyId: keyId, allowLoopback: false }), client())
    const secret = generateWebhookSecret()
    const sealed = await box.seal(secret, { endpointId })
    expect(sealed).toMatch(/^kms:[A-Za-z0-9+/]+=*$/)
    expect(sealed).not.toContain(secret.slice(6))
    expect(await box.open(sealed, { endpointId })).toBe(secret)

    expect(kms.requests.map((r) => r.target)).toEqual([
      'TrentService.Encrypt',
      'TrentService.Decrypt',
    ])
    const [encrypt, decrypt] = kms.requests
    expect(encrypt?.body).toEqual({
      KeyId: keyId,
      Plaintext: Buffer.from(secret).toString('base64'),
      EncryptionContext: { endpointId },
    })
    expect(decrypt?.body).toEqual({
      KeyId: keyId,
      CiphertextBlob: sealed.slice(4),
      EncryptionContext: { endpointId },
    })
    // Signed requests, as KMS requires.
    expect(encrypt?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDTEST\//)

    // The SDK logged both calls, with the secret (and its base64) hidden.
    expect(logged.join('\n')).toContain('EncryptCommand')
    expect(logged.join('\n')).toContain('DecryptCommand')
    for (const form of [secret, secret.slice(6), Buffer.from(secret).toString('base64')]) {
      expect(logged.join('\n')).not.toContain(form)
    }
  })

  it('builds its own client when given none (region, endpoint and credentials from the environment)', async () => {
    const names = [
      'AWS_ENDPOINT_URL_KMS',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
    ]
    const saved = names.map((name) => process.env[name])
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'test-only',
    })
    try {
      const box = secretBoxFrom(webhooks({ kmsKeyId: keyId }))
      const before = kms.requests.length
      const sealed = await box.seal('whsec_AAAA', { endpointId })
      expect(await box.open(sealed, { endpointId })).toBe('whsec_AAAA')
      const mine = kms.requests.slice(before)
      expect(mine.map((r) => r.headers.authorization?.slice(0, 36))).toEqual([
        'AWS4-HMAC-SHA256 Credential=AKIDENV/',
        'AWS4-HMAC-SHA256 Credential=AKIDENV/',
      ])
      expect(mine.map((r) => r.body.KeyId)).toEqual([keyId, keyId])
    } finally {
      names.forEach((name, i) => {
        if (saved[i] === undefined) delete process.env[name]
        else process.env[name] = saved[i]
      })
    }
  })

  it("refuses another endpoint's context and a changed blob, loudly and without the secret", async () => {
    const box = secretBoxFrom(webhooks({ kmsKeyId: keyId, allowLoopback: false }), client())
    const secret = generateWebhookSecret()
    const sealed = await box.seal(secret, { endpointId })
    const refused =
      'A webhook secret could not be opened: wrong endpoint or key, or a changed value'
    expect(await refusal(box, sealed, otherEndpoint)).toBe(refused)
    const blob = Buffer.from(sealed.slice(4), 'base64')
    blob[blob.length - 1] = (blob[blob.length - 1] ?? 0) ^ 1
    expect(await refusal(box, `kms:${blob.toString('base64')}`)).toBe(refused)
    // Another key named by the function: KMS refuses the blob.
    const otherKey = secretBoxFrom(
      webhooks({ kmsKeyId: `${keyId}-other`, allowLoopback: false }),
      client(),
    )
    expect(await refusal(otherKey, sealed)).toBe(refused)
    expect(await refusal(box, `local:${sealed.slice(4)}`)).toBe(
      'A webhook secret could not be opened: it was sealed with local',
    )
    // A KMS box is chosen over a local key when both are set.
    const both = secretBoxFrom(
      { kmsKeyId: keyId, localSecretKey: key(), allowLoopback: false },
      client(),
    )
    expect(await both.seal('whsec_x', { endpointId })).toMatch(/^kms:/)
  })
})
