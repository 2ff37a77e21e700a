import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * A throw-away self-signed certificate for a test's https receiver, made by `openssl` at run time
 * (no private key is ever committed). The certificate is its own CA: hand it to the client as `ca`
 * (in-process) or through NODE_EXTRA_CA_CERTS (a spawned process).
 */
export const selfSignedCert = (names: { dns?: string[]; ip?: string[] } = {}) => {
  const dns = names.dns ?? ['receiver.test']
  const ip = names.ip ?? []
  const dir = mkdtempSync(join(tmpdir(), 'vs-cert-'))
  try {
    const keyFile = join(dir, 'key.pem')
    const certFile = join(dir, 'cert.pem')
    const san = [...dns.map((name) => `DNS:${name}`), ...ip.map((address) => `IP:${address}`)]
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${dns[0] ?? ip[0] ?? 'receiver'}`,
        '-addext',
        `subjectAltName=${san.join(',')}`,
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: 'pipe' },
    )
    return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
