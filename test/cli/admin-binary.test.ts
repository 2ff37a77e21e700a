import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAdmin, spawnAdmin } from '../support/admin-run'
import { adminTables } from '../support/api'
import { config } from '../support/runtime'

/**
 * The admin CLI's binary as an operator starts it: `npm run admin -- ...` and bin/admin.ts under
 * tsx, as child processes. Only what a process shows is here: it starts, reads VS_LOCAL_DIR from
 * its environment, writes results to stdout and warnings and errors to stderr, and exits 0 or 1
 * (the only codes it uses). Every command's behaviour is tested in process through the same entry
 * module (admin-cli, member-cli and admin-in-process tests).
 */

/** A folder like `.local/` of a running `npm start`, on the run's DynamoDB Local and tables. */
const localDir = mkdtempSync(join(tmpdir(), 'vs-admin-bin-'))
writeFileSync(
  join(localDir, 'dynamodb-endpoint.json'),
  JSON.stringify({ endpoint: config.dynamodbEndpoint, tables: adminTables }),
)

describe('the admin binary', () => {
  it('npm run admin -- --help prints every command on stdout, nothing on stderr, and exits 0', async () => {
    const top = await spawnAdmin(['--help'], {}, 'npm')
    expect({ code: top.code, stderr: top.stderr }).toEqual({ code: 0, stderr: '' })
    expect(top.stdout).toMatch(/^Usage: npm run admin -- <noun> <verb> \[options\]/)
    const commands = [...top.stdout.matchAll(/^ {2}(\w+ [\w-]+)/gm)].map((m) => m[1])
    // issuer 2, program 6, key 5, grant 4, member 5.
    expect(commands).toHaveLength(22)
    // The text the entry module prints in process, byte for byte.
    expect(top.stdout).toBe((await runAdmin(['--help'], localDir)).stdout)
  })

  it('works on the database VS_LOCAL_DIR names: the result on stdout, the warning on stderr, exit 0', async () => {
    const issuer = await runAdmin(['issuer', 'create', '--name', 'Binary', '--json'], localDir)
    const { issuerId } = JSON.parse(issuer.stdout)
    const created = await spawnAdmin(['key', 'create', '--issuer', issuerId, '--mode', 'TEST'], {
      VS_LOCAL_DIR: localDir,
    })
    expect(created.code).toBe(0)
    // Exactly the one warning: no SDK notice or other start-up noise (bin/admin.ts silences it).
    expect(created.stderr).toMatch(/^WARNING: This secret is shown once and cannot be shown again/)
    expect(created.stderr.split('\n')).toHaveLength(2)
    const [line, secret, end] = created.stdout.split('\n')
    expect(line).toMatch(
      new RegExp(`^Created TEST key key_\\w+ for ${issuerId} \\(expires never\\)$`),
    )
    expect(secret).toMatch(/^vs_test_/)
    expect(end).toBe('')
    // Written to the tables that folder names.
    const keys = await runAdmin(['key', 'list', '--issuer', issuerId, '--json'], localDir)
    expect(JSON.parse(keys.stdout)).toEqual([
      expect.objectContaining({ issuerId, last4: secret?.slice(-4), status: 'active' }),
    ])
  })

  it('writes a failure as one "error: " line on stderr, nothing on stdout, and exits 1', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'vs-admin-bin-empty-'))
    const result = await spawnAdmin(['issuer', 'list'], { VS_LOCAL_DIR: empty })
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' })
    expect(result.stderr).toMatch(
      /^error: The local database is not running: .*vs-admin-bin-empty-.*dynamodb-endpoint\.json does not exist\. Start it with `npm start`.*\n$/,
    )
    expect(result.stderr.split('\n')).toHaveLength(2)
  })
})
