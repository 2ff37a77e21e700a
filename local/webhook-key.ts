import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * The key npm start seals webhook signing secrets with (WEBHOOK_LOCAL_SECRET_KEY, read by
 * functions/runtime/secret-box.ts): kept beside the local data, so endpoints created in one run
 * still sign after a restart. Made once (32 random bytes, base64), readable by its owner only.
 */
export const webhookKeyFile = (dir: string) => resolve(dir, 'webhook-secrets.key')

const KEY = /^[A-Za-z0-9+/]{43}=$/

export const webhookSecretKey = (dir: string) => {
  const file = webhookKeyFile(dir)
  mkdirSync(dir, { recursive: true })
  try {
    // `wx`: only if absent, so two starts racing never overwrite each other's key.
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  // A key copied in with looser permissions is tightened: it opens every local secret.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600)
  const key = readFileSync(file, 'utf8').trim()
  if (!KEY.test(key)) {
    throw new Error(
      `${file} is not a webhook key (32 bytes in base64); delete it to make a new one (endpoints made with the old key will need new secrets)`,
    )
  }
  return key
}
