import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Mail } from '../../local/mail-sink'
import { ROOT } from './root'

/**
 * What the operator of an `npm start` does outside the console, for the tests and the bench: the
 * admin CLI on its tables and emulator, its mail sink, and a member invited into the seeded issuer.
 * No browser here: the API tests and the bench import it without Playwright.
 */
export type OperatedServer = { dir: string; baseUrl: string; seed: { issuerId: string } }

const TSX = resolve(ROOT, 'node_modules/tsx/dist/cli.mjs')
const run = promisify(execFile)

/** The operator's admin CLI on that server's tables and emulator, as `npm run admin -- ...`. */
export const adminCli = async (server: Pick<OperatedServer, 'dir'>, args: string[]) => {
  try {
    const { stdout } = await run(process.execPath, [TSX, 'bin/admin.ts', ...args, '--json'], {
      cwd: ROOT,
      env: { ...process.env, VS_LOCAL_DIR: server.dir },
    })
    return JSON.parse(stdout)
  } catch (error) {
    const e = error as { stderr?: string; message: string }
    throw new Error(`admin ${args.join(' ')} failed: ${e.stderr ?? e.message}`)
  }
}

/**
 * The newest mail to `email` in the server's mail sink (listed newest first) whose subject has
 * `subject` in it, once it is there.
 */
export const mailTo = async (
  server: Pick<OperatedServer, 'baseUrl'>,
  email: string,
  subject = '',
): Promise<Mail> => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const response = await fetch(`${server.baseUrl}/_local/mail.json`)
    const mails = (await response.json()) as Mail[]
    const mine = mails.find((m) => m.to === email && m.subject.includes(subject))
    if (mine) return mine
    if (Date.now() > deadline) throw new Error(`no mail to ${email} about ${subject}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

export const temporaryPasswordIn = (mail: Mail) => {
  const found = /Temporary password: (\S+)/.exec(mail.text)?.[1]
  if (!found) throw new Error(`no temporary password in ${mail.text}`)
  return found
}

/**
 * A person the operator invites with `role` into the seeded issuer (`member invite`), at a fresh
 * address that starts with `who`: the address and the temporary password their invitation mail
 * carries. Their first sign-in is the caller's (the console, or Cognito's API).
 */
export const invitedMember = async (server: OperatedServer, role: string, who = role) => {
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
