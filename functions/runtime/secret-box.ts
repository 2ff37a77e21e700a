import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms'
import type { Config } from '../config'

/**
 * Webhook signing secrets are stored sealed, bound to their endpoint: the sender must read them
 * back to sign (so they cannot be hashes like API keys), and a copy of the table alone must not
 * sign anything. In AWS the stack's KMS key seals them (the endpoint id as encryption context);
 * under npm start and in tests, AES-256-GCM with a local key (the endpoint id as associated data).
 * Opening with another endpoint id, another key or a changed value fails loudly.
 */
export type SecretBox = {
  seal(plain: string, context: { endpointId: string }): Promise<string>
  open(sealed: string, context: { endpointId: string }): Promise<string>
}

const KMS_PREFIX = 'kms:'
const LOCAL_PREFIX = 'local:'
const IV_BYTES = 12
const TAG_BYTES = 16

/** Never says the value: only what went wrong. */
const cannotOpen = (why: string, cause?: unknown) =>
  new Error(`A webhook secret could not be opened: ${why}`, cause ? { cause } : undefined)

const prefixed = (sealed: string, prefix: string, other: string) => {
  if (sealed.startsWith(prefix)) return Buffer.from(sealed.slice(prefix.length), 'base64')
  throw cannotOpen(
    sealed.startsWith(other) ? `it was sealed with ${other.slice(0, -1)}` : 'not a sealed value',
  )
}

export const kmsSecretBox = (kms: KMSClient, keyId: string): SecretBox => ({
  async seal(plain, { endpointId }) {
    const { CiphertextBlob } = await kms.send(
      new EncryptCommand({
        KeyId: keyId,
        Plaintext: Buffer.from(plain, 'utf8'),
        EncryptionContext: { endpointId },
      }),
    )
    if (!CiphertextBlob) throw new Error('KMS returned no ciphertext')
    return `${KMS_PREFIX}${Buffer.from(CiphertextBlob).toString('base64')}`
  },
  async open(sealed, { endpointId }) {
    const blob = prefixed(sealed, KMS_PREFIX, LOCAL_PREFIX)
    try {
      const { Plaintext } = await kms.send(
        new DecryptCommand({
          // Naming the key: KMS refuses a blob sealed under any other.
          KeyId: keyId,
          CiphertextBlob: blob,
          EncryptionContext: { endpointId },
        }),
      )
      if (!Plaintext) throw new Error('KMS returned no plaintext')
      return Buffer.from(Plaintext).toString('utf8')
    } catch (error) {
      const name = (error as { name?: string }).name
      if (name === 'InvalidCiphertextException' || name === 'IncorrectKeyException') {
        throw cannotOpen('wrong endpoint or key, or a changed value', error)
      }
      throw error
    }
  },
})

const localKey = (base64: string) => {
  const key = Buffer.from(base64, 'base64')
  if (key.length !== 32 || key.toString('base64') !== base64.trim()) {
    throw new Error('WEBHOOK_LOCAL_SECRET_KEY must be 32 bytes in base64')
  }
  return key
}

/** AES-256-GCM: `local:` + base64(iv | tag | ciphertext), the endpoint id as associated data. */
export const localSecretBox = (base64Key: string): SecretBox => {
  const key = localKey(base64Key)
  return {
    async seal(plain, { endpointId }) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      cipher.setAAD(Buffer.from(endpointId, 'utf8'))
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return `${LOCAL_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`
    },
    async open(sealed, { endpointId }) {
      const bytes = prefixed(sealed, LOCAL_PREFIX, KMS_PREFIX)
      if (bytes.length < IV_BYTES + TAG_BYTES) throw cannotOpen('too short')
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES))
        decipher.setAAD(Buffer.from(endpointId, 'utf8'))
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
        return Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8')
      } catch (error) {
        throw cannotOpen('wrong endpoint or key, or a changed value', error)
      }
    },
  }
}

const unconfigured: SecretBox = {
  seal: async () => {
    throw new Error(
      'Webhook secrets cannot be sealed: set WEBHOOK_KMS_KEY_ID (or, locally, WEBHOOK_LOCAL_SECRET_KEY)',
    )
  },
  open: async () => {
    throw new Error(
      'Webhook secrets cannot be opened: set WEBHOOK_KMS_KEY_ID (or, locally, WEBHOOK_LOCAL_SECRET_KEY)',
    )
  },
}

/**
 * The box a function uses: KMS when the stack gave it a key (with the caller's client, built once
 * per entry point, or one built here once), else the local key, else one that fails at first use.
 * A malformed local key fails here, at start.
 */
export const secretBoxFrom = (config: Config['webhooks'], kms?: KMSClient): SecretBox => {
  if (config.kmsKeyId !== undefined) return kmsSecretBox(kms ?? new KMSClient({}), config.kmsKeyId)
  if (config.localSecretKey !== undefined) return localSecretBox(config.localSecretKey)
  return unconfigured
}

/**
 * The box of a function that has only its configuration: its KMS client, when a key is set, built
 * here once in the configuration's region, so no caller above runtime/ builds an SDK client.
 */
export const secretBoxIn = (config: Pick<Config, 'webhooks' | 'awsRegion'>): SecretBox =>
  secretBoxFrom(
    config.webhooks,
    config.webhooks.kmsKeyId === undefined
      ? undefined
      : new KMSClient({ region: config.awsRegion }),
  )
