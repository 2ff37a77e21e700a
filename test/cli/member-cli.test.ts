import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseCommand } from '../../cli/admin-cli'
import { userPoolFromStackOutputs } from '../../cli/member-commands'
import { ENV } from '../../functions/env-names'
import { readMail } from '../../local/mail-sink'
import {
  auditOf,
  createIssuer,
  issuerState,
  membershipsOf,
  tables,
} from '../manage/members-support'
import { type CliResult, runAdmin } from '../support/admin-run'
import { request, startApi } from '../support/api'
import {
  accessTokenFor,
  bearer,
  completeFirstSignIn,
  identity,
  type Person,
  signUpPerson,
} from '../support/identity'
import { config, runtimeWith } from '../support/runtime'

/**
 * The admin CLI's `member` commands as an operator runs them, in this process through the CLI's
 * entry module (cli/main.ts, which bin/admin.ts runs; test/cli/admin-binary.test.ts runs the
 * binary), on the local target `npm start` records (here: the run's DynamoDB Local and Cognito
 * emulator, through a `.local/`-like folder), then real sign-ins and real HTTP calls with what it
 * did.
 */

/** A folder like `.local/` of a running `npm start`: the database and, unless told, the pool. */
const localDir = (withIdentity = true) => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-members-'))
  writeFileSync(
    join(dir, 'dynamodb-endpoint.json'),
    JSON.stringify({ endpoint: config.dynamodbEndpoint, tables }),
  )
  if (withIdentity) {
    const { endpoint, userPoolId, clientId, issuer } = identity()
    writeFileSync(
      join(dir, 'identity.json'),
      JSON.stringify({ endpoint, userPoolId, clientId, issuer }),
    )
  }
  return dir
}
const dir = localDir()

const cli = (args: string[], where = dir): Promise<CliResult> => runAdmin(args, where)
const json = async (args: string[]) => {
  const result = await cli([...args, '--json'])
  if (result.code !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

const mailTo = (email: string) => readMail(identity().mailFile).filter((m) => m.to === email)
const temporaryPassword = (text: string | undefined) =>
  /Temporary password: (\S+)/.exec(text ?? '')?.[1] as string

let api: Awaited<ReturnType<typeof startApi>>
beforeAll(async () => {
  const runtime = runtimeWith({
    [ENV.userPoolId]: identity().userPoolId,
    [ENV.cognitoEndpoint]: identity().endpoint,
  })
  api = await startApi({ runtime })
})
afterAll(() => api?.close())

describe('admin CLI: member commands', () => {
  it('bootstraps an issuer: invite an owner, who signs in and manages the members over the API', async () => {
    const issuerId = await createIssuer('Bootstrap Corp')
    const email = `founder-${Date.now()}@example.com`
    const invited = await cli([
      'member',
      'invite',
      '--issuer',
      issuerId,
      '--email',
      ` ${email.toUpperCase()}`,
      '--role',
      'owner',
    ])
    expect(invited).toMatchObject({ code: 0, stderr: '' })
    expect(invited.stdout).toMatch(
      new RegExp(`^Invited ${email} to ${issuerId} as owner \\(member [0-9a-f-]{36}\\)`),
    )
    const [mail] = mailTo(email)
    expect(mail?.text).toContain('Bootstrap Corp')
    // The temporary password is in the e-mail only: never on the operator's terminal.
    expect(invited.stdout + invited.stderr).not.toContain(temporaryPassword(mail?.text))

    const listed = await cli(['member', 'list', '--issuer', issuerId])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/MEMBER\s+EMAIL\s+ROLE\s+STATUS\s+CREATED\s+INVITED BY/)
    expect(listed.stdout).toMatch(
      new RegExp(`${email}\\s+owner\\s+invited\\s+\\S+\\s+operator CLI`),
    )

    const [member] = await membershipsOf(issuerId)
    const { password } = await completeFirstSignIn(email, temporaryPassword(mail?.text))
    const founder: Person = { sub: member?.sub as string, email, password }
    // The console asks who they are after sign-in: that accepts the invitation.
    const me = await request(api.baseUrl, 'GET', '/manage/me', {
      headers: bearer(await accessTokenFor(founder)),
    })
    expect(me.status).toBe(200)
    const call = await request(api.baseUrl, 'GET', `/manage/issuers/${issuerId}/members`, {
      headers: bearer(await accessTokenFor(founder)),
    })
    expect(call.status).toBe(200)
    expect(call.body.members).toEqual([
      expect.objectContaining({ memberId: founder.sub, email, role: 'owner', status: 'active' }),
    ])
    expect(await json(['member', 'list', '--issuer', issuerId])).toEqual([
      {
        memberId: founder.sub,
        email,
        role: 'owner',
        status: 'active',
        createdAt: expect.any(String),
        invitedBy: 'operator CLI',
      },
    ])
    expect(await auditOf(issuerId)).toEqual([
      expect.objectContaining({
        action: 'member.invite',
        actor: { kind: 'operator', label: 'operator CLI' },
        target: { type: 'member', id: founder.sub },
      }),
    ])
  })

  it('adds an existing account without a password, changes a role, resends, and removes by e-mail or id', async () => {
    const issuerId = await createIssuer('Second Corp')
    const owner = await signUpPerson()
    const colleague = await signUpPerson()
    await json([
      'member',
      'invite',
      '--issuer',
      issuerId,
      '--email',
      owner.email,
      '--role',
      'owner',
    ])
    const mails = mailTo(colleague.email).length
    const added = await json([
      'member',
      'invite',
      '--issuer',
      issuerId,
      '--email',
      colleague.email,
      '--role',
      'viewer',
    ])
    expect(added).toMatchObject({
      issuerId,
      memberId: colleague.sub,
      // The same answer as for a new address: pending until they sign in.
      status: 'invited',
      invitationSent: false,
    })
    expect(mailTo(colleague.email)).toHaveLength(mails)

    const promoted = await cli([
      'member',
      'role',
      '--issuer',
      issuerId,
      '--email',
      colleague.email,
      '--role',
      'admin',
    ])
    expect(promoted.stdout.trim()).toBe(`${colleague.email} is now admin in ${issuerId}`)

    const pending = `pending-${Date.now()}@example.com`
    const invited = await json([
      'member',
      'invite',
      '--issuer',
      issuerId,
      '--email',
      pending,
      '--role',
      'viewer',
    ])
    const resent = await cli([
      'member',
      'resend',
      '--issuer',
      issuerId,
      '--member',
      invited.memberId,
    ])
    expect(resent.code).toBe(0)
    expect(mailTo(pending)).toHaveLength(2)

    const withdrawn = await cli(['member', 'remove', '--issuer', issuerId, '--email', pending])
    expect(withdrawn.stdout.trim()).toBe(
      `Removed ${pending} (viewer, invitation pending) from ${issuerId}`,
    )
    const removed = await json([
      'member',
      'remove',
      '--issuer',
      issuerId,
      '--member',
      colleague.sub,
    ])
    expect(removed).toMatchObject({ memberId: colleague.sub, role: 'admin' })
    // Their very next call is refused.
    const call = await request(api.baseUrl, 'GET', `/manage/issuers/${issuerId}/members`, {
      headers: bearer(await accessTokenFor(colleague)),
    })
    expect(call.status).toBe(404)

    expect((await membershipsOf(issuerId)).map((m) => m.email)).toEqual([owner.email])
    expect((await auditOf(issuerId)).map((e) => e.action).sort()).toEqual([
      'member.invite',
      'member.invite',
      'member.invite',
      'member.remove',
      'member.remove',
      'member.resend',
      'member.role',
    ])
  })

  it('refuses bad input with one line and exit 1, and changes nothing', async () => {
    const issuerId = await createIssuer('Refusals Corp')
    const owner = await signUpPerson()
    await json([
      'member',
      'invite',
      '--issuer',
      issuerId,
      '--email',
      owner.email,
      '--role',
      'owner',
    ])
    // Signed in to the console since: the invitation is accepted (a resend is refused below).
    const me = await request(api.baseUrl, 'GET', '/manage/me', {
      headers: bearer(await accessTokenFor(owner)),
    })
    expect(me.status).toBe(200)
    const before = await issuerState(issuerId)
    const cases: [string[], RegExp][] = [
      [
        ['member', 'invite', '--issuer', issuerId, '--email', 'x@example.com', '--role', 'boss'],
        /^error: --role must be one of viewer, admin, owner\.$/,
      ],
      [
        ['member', 'invite', '--issuer', issuerId, '--email', 'not-an-address', '--role', 'viewer'],
        /^error: --email must be a valid e-mail address\.$/,
      ],
      [
        ['member', 'invite', '--issuer', issuerId],
        /^error: --email is required\. --role is required\.$/,
      ],
      [
        ['member', 'invite', '--email', 'x@example.com', '--role', 'viewer'],
        /^error: --issuer is required\.$/,
      ],
      [
        [
          'member',
          'invite',
          '--issuer',
          'iss_00000000000000000000000000',
          '--email',
          'x@example.com',
          '--role',
          'viewer',
        ],
        /^error: No issuer iss_0+\.$/,
      ],
      [['member', 'list', '--issuer', 'acme'], /^error: Issuer "acme" is not a valid id\.$/],
      [
        [
          'member',
          'invite',
          '--issuer',
          issuerId,
          '--email',
          owner.email.toUpperCase(),
          '--role',
          'admin',
        ],
        /^error: .* is already a member of this issuer/,
      ],
      [
        ['member', 'remove', '--issuer', issuerId, '--email', owner.email],
        /^error: This is the issuer's last owner/,
      ],
      [
        ['member', 'role', '--issuer', issuerId, '--member', owner.sub, '--role', 'viewer'],
        /^error: This is the issuer's last owner/,
      ],
      [
        ['member', 'remove', '--issuer', issuerId, '--email', 'nobody@example.com'],
        /^error: nobody@example.com is not a member of iss_/,
      ],
      [
        ['member', 'remove', '--issuer', issuerId, '--member', 'abc'],
        /^error: Member "abc" is not a valid member id/,
      ],
      [
        [
          'member',
          'remove',
          '--issuer',
          issuerId,
          '--member',
          '5f0c9d1e-0000-4000-8000-000000000001',
        ],
        /^error: No member 5f0c9d1e-0000-4000-8000-000000000001 in iss_/,
      ],
      [
        ['member', 'remove', '--issuer', issuerId, '--member', owner.sub, '--email', owner.email],
        /^error: Name the member with exactly one of --member <memberId> or --email <address>\.$/,
      ],
      [
        ['member', 'resend', '--issuer', issuerId, '--email', owner.email],
        /^error: This person has already signed in/,
      ],
      [
        ['member', 'invite', '--issuer', issuerId, '--name', 'x'],
        /^error: "member invite" does not take --name/,
      ],
      [
        ['member', 'promote'],
        /^error: Unknown command "member promote"\. member takes: invite, list, role, remove, resend\.$/,
      ],
    ]
    // The run's mail sink is shared by every test file running at the same time: count only the
    // mail to addresses these cases name.
    const named = new Set([
      owner.email,
      ...cases.flatMap(([args]) => args.filter((a) => a.includes('@'))),
    ])
    const mailToNamed = () => readMail(identity().mailFile).filter((m) => named.has(m.to)).length
    const mails = mailToNamed()
    for (const [args, message] of cases) {
      const result = await cli(args)
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({
        args,
        code: 1,
        stdout: '',
      })
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect({ args, stderr: result.stderr.trim() }).toEqual({
        args,
        stderr: expect.stringMatching(message),
      })
    }
    expect(await issuerState(issuerId)).toEqual(before)
    expect(mailToNamed()).toBe(mails)
  })

  it('says where to start the emulator when npm start is not running it, and writes nothing', async () => {
    const issuerId = await createIssuer('No Pool Corp')
    const result = await cli(
      ['member', 'invite', '--issuer', issuerId, '--email', 'x@example.com', '--role', 'owner'],
      localDir(false),
    )
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toMatch(
      /^error: The local Cognito emulator is not running: .*identity\.json does not exist\. Start it with `npm start`/,
    )
    expect(await issuerState(issuerId)).toEqual({ memberships: [], audit: [] })
  })

  it('documents the commands in --help', async () => {
    const help = await cli(['member', '--help'])
    expect(help.code).toBe(0)
    for (const verb of ['invite', 'list', 'role', 'remove', 'resend']) {
      expect(help.stdout).toContain(`member ${verb} --issuer <issuerId>`)
    }
    expect(parseCommand(['member', 'invite', '--help'])).toMatchObject({
      kind: 'help',
      text: expect.stringContaining('--email <address> --role owner|admin|viewer'),
    })
  })

  it('reads the user pool of --stack from the stack outputs, and says when the stack has none', () => {
    const outputs = [{ OutputKey: 'UserPoolId', OutputValue: 'eu-west-1_AbC123' }]
    expect(
      userPoolFromStackOutputs({ Stacks: [{ StackName: 'VS', Outputs: outputs } as never] }, 'VS'),
    ).toBe('eu-west-1_AbC123')
    expect(() =>
      userPoolFromStackOutputs({ Stacks: [{ StackName: 'VS', Outputs: [] } as never] }, 'VS'),
    ).toThrow('Stack VS has no output UserPoolId')
  })
})
