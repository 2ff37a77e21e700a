import { randomUUID } from 'node:crypto'
import type { Mail } from '../../local/mail-sink'
import { runAdmin } from './admin-run'

/**
 * What the operator of an `npm start` does outside the console, for the tests and the bench: the
 * admin CLI on its tables and emulator, its mail sink, and a member invited into the seeded issuer.
 * No browser here: the API tests and the bench import it without Playwright.
 */
export type OperatedServer = { dir: string; baseUrl: string; seed: { issuerId: string } }

/**
 * The operator's admin CLI on that server's tables and emulator, as `npm run admin -- ...` with
 * VS_LOCAL_DIR at its folder, run in this process (test/cli/admin-binary.test.ts runs the binary).
 */
export const adminCli = async (server: Pick<OperatedServer, 'dir'>, args: string[]) => {
  const { code, stdout, stderr } = await runAdmin([...args, '--json'], server.dir)
  try {
    if (code !== 0) throw new Error(stderr)
    return JSON.parse(stdout)
  } catch (error) {
    throw new Error(`admin ${args.join(' ')} failed: ${(error as Error).message}`)
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
