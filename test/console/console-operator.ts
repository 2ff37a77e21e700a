import { randomUUID } from 'node:crypto'
import { runCli } from '../../cli/main'
import { mailTo, temporaryPasswordIn } from '../support/local-operator'

/**
 * What the operator of the console tests' server does outside the console: the admin CLI run in
 * this process through its entry function (cli/main.ts runCli, what bin/admin.ts calls), on that
 * server's records, as `npm run admin -- ... --json`. The spawned binary has its own tests
 * (test/cli); a spawn here would cost a TypeScript start-up for each invitation.
 */
export const adminCli = async (server: { dir: string }, args: string[]) => {
  const out: string[] = []
  const err: string[] = []
  const io = { out: (text: string) => out.push(text), err: (text: string) => err.push(text) }
  const code = await runCli([...args, '--json'], io, { localDir: server.dir })
  if (code !== 0) throw new Error(`admin ${args.join(' ')} failed: ${err.join('\n')}`)
  return JSON.parse(out.join('\n'))
}

/**
 * A person the operator invites with `role` into the file's issuer (`member invite`), at a fresh
 * address that starts with `who`: the address and the temporary password their invitation mail
 * carries. Their first sign-in is the caller's.
 */
export const invitedMember = async (
  server: { dir: string; baseUrl: string; seed: { issuerId: string } },
  role: string,
  who = role,
) => {
  const email = `${who}-${randomUUID().slice(0, 8)}@example.com`
  await adminCli(server, [
    'member',
    'invite',
    '--issuer',
    server.seed.issuerId,
    '--email',
    email,
    '--role',
    role,
  ])
  return { email, temporary: temporaryPasswordIn(await mailTo(server, email)) }
}
