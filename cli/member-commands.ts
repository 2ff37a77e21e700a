import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DescribeStacksCommandOutput } from '@aws-sdk/client-cloudformation'
import type { Members, MemberView } from '../functions/core/members'
import { idPattern } from '../functions/domain/ids'
import { MEMBER_ID, MemberEmailSchema } from '../functions/domain/member-request.schema'
import { OPERATOR } from '../functions/domain/people'
import type { IdentityProvider } from '../functions/identity/identity-provider'
import type { AdminTableNames } from '../functions/stores/admin.store'
import { localPaths } from '../local/local-env'
import type { Command, Io, Values } from './command'
import { table } from './format'
import { CliError } from './messages'
import { localTarget, readStack, stackOutputs, tablesFromStackOutputs } from './targets'

/**
 * The admin CLI's `member` commands: the operator's door to the same use cases the member routes
 * run (functions/core/members.ts), with the operator as the actor of every audit entry.
 * They find their own target (local: `npm start`'s DynamoDB Local and Cognito emulator, from
 * `.local/`; `--stack`: the stack's outputs, tables and `UserPoolId`), so they need nothing from the
 * rest of the CLI but their registration in admin-cli.ts.
 */

/** The shape of admin-cli.ts's commands; `run` ignores the admin use cases it is handed. */
type MemberCommand = Command

/** The options the member commands add to the CLI's (admin-cli.ts spreads them into its own). */
export const MEMBER_OPTIONS = {
  email: { type: 'string' },
  role: { type: 'string' },
  member: { type: 'string' },
} as const

/** The stack output that names the user pool (lib/identity.ts). */
export const USER_POOL_OUTPUT = 'UserPoolId'

/** Reads the user pool's id from a DescribeStacks answer. */
export const userPoolFromStackOutputs = (
  response: Pick<DescribeStacksCommandOutput, 'Stacks'>,
  stackName: string,
): string => {
  const id = stackOutputs(response, stackName).get(USER_POOL_OUTPUT)
  if (!id) {
    throw new CliError(
      `Stack ${stackName} has no output ${USER_POOL_OUTPUT}: deploy this version of the stack first (it adds the user pool).`,
    )
  }
  return id
}

type Where = {
  tables: AdminTableNames
  /** DynamoDB Local's address; absent for a stack. */
  dynamodbEndpoint?: string
  region?: string
  /** The pool, or why there is none (a local emulator that is not running). */
  pool: { userPoolId: string; endpoint?: string } | { missing: string }
  /** Where `npm start` serves its mail sink, when known. */
  mailPage?: string
}

const hint = 'Start it with `npm start` in this checkout (or use --stack for a deployed stage).'

const localWhere = async (localDir: string | undefined): Promise<Where> => {
  const paths = localPaths(localDir)
  const target = await localTarget(paths.endpointFile)
  const identityFile = join(paths.dir, 'identity.json')
  const baseUrl = (() => {
    try {
      return (JSON.parse(readFileSync(paths.endpointFile, 'utf8')) as { baseUrl?: string }).baseUrl
    } catch {
      return undefined
    }
  })()
  let pool: Where['pool'] = {
    missing: `The local Cognito emulator is not running: ${identityFile} does not exist. ${hint}`,
  }
  if (existsSync(identityFile)) {
    const recorded = JSON.parse(readFileSync(identityFile, 'utf8')) as {
      endpoint: string
      userPoolId: string
    }
    pool = { userPoolId: recorded.userPoolId, endpoint: recorded.endpoint }
  }
  return {
    tables: target.tables,
    ...(target.kind === 'local' ? { dynamodbEndpoint: target.endpoint } : {}),
    pool,
    ...(baseUrl === undefined ? {} : { mailPage: `${baseUrl}/_local/mail` }),
  }
}

const stackWhere = (stackName: string, region?: string): Promise<Where> =>
  readStack(stackName, region, (response) => ({
    tables: tablesFromStackOutputs(response, stackName),
    pool: { userPoolId: userPoolFromStackOutputs(response, stackName) },
    ...(region === undefined ? {} : { region }),
  }))

/** The member use cases over the target's tables and pool, with the operator as the actor. */
const open = async (values: Values, io: Io, localDir: string | undefined) => {
  const stack = values.stack as string | undefined
  const region = values.region as string | undefined
  const where = stack === undefined ? await localWhere(localDir) : await stackWhere(stack, region)
  const [dynamoModule, { DynamoDbMembersStore }, { makeMembers }, cognito] = await Promise.all([
    import('../functions/stores/dynamodb-client'),
    import('../functions/stores/members.dynamodb'),
    import('../functions/core/members'),
    import('../functions/identity/cognito-identity-provider'),
  ])
  const dynamodb = dynamoModule.createDynamoDbClient({
    ...(where.dynamodbEndpoint === undefined ? {} : { endpoint: where.dynamodbEndpoint }),
    ...(where.region === undefined ? {} : { region: where.region }),
  })
  let provider: IdentityProvider | undefined
  let pool: { destroy: () => void } | undefined
  const identity = () => {
    if ('missing' in where.pool) throw new CliError(where.pool.missing)
    const { userPoolId, endpoint } = where.pool
    if (provider === undefined) {
      const client = cognito.createCognitoClient({
        ...(endpoint === undefined ? {} : { endpoint }),
        ...(where.region === undefined ? {} : { region: where.region }),
      })
      pool = client
      provider = new cognito.CognitoIdentityProvider(client, userPoolId)
    }
    return provider
  }
  let warned = false
  const members = makeMembers({
    store: new DynamoDbMembersStore(dynamoModule.createDocumentClient(dynamodb), where.tables),
    identity,
    warn: () => {
      if (warned) return
      warned = true
      io.err('warning: the user pool did not answer; statuses are as last recorded.')
    },
  })
  // Both clients closed: run in process (tests, the bench) their sockets would outlive the command.
  const close = () => {
    dynamodb.destroy()
    pool?.destroy()
  }
  return { members, where, close }
}

const str = (values: Values, key: string) => values[key] as string | undefined

const requireIssuer = async (members: Members, values: Values) => {
  const issuerId = str(values, 'issuer')
  if (issuerId === undefined) throw new CliError('--issuer is required.')
  if (!idPattern('issuer').test(issuerId)) {
    throw new CliError(`Issuer ${JSON.stringify(issuerId)} is not a valid id.`)
  }
  await members.issuerName(issuerId)
  return issuerId
}

/** `--member <sub>` or `--email <address>`: exactly one. */
const requireMemberId = async (members: Members, issuerId: string, values: Values) => {
  const memberId = str(values, 'member')
  const email = str(values, 'email')
  if ((memberId === undefined) === (email === undefined)) {
    throw new CliError(
      'Name the member with exactly one of --member <memberId> or --email <address>.',
    )
  }
  if (memberId !== undefined) {
    if (!MEMBER_ID.test(memberId)) {
      throw new CliError(
        `Member ${JSON.stringify(memberId)} is not a valid member id (a UUID; see member list).`,
      )
    }
    return memberId
  }
  const parsed = MemberEmailSchema.safeParse(email)
  if (!parsed.success) throw new CliError('--email must be a valid e-mail address.')
  const found = (await members.list(issuerId)).find((m) => m.email === parsed.data)
  if (!found) throw new CliError(`${parsed.data} is not a member of ${issuerId}.`)
  return found.memberId
}

/** Runs a member command against its target; every failure is one line and exit 1. */
const command =
  (
    work: (
      context: Awaited<ReturnType<typeof open>>,
      values: Values,
      json: boolean,
      io: Io,
    ) => Promise<void>,
  ): MemberCommand['run'] =>
  async (_admin, { values, json, localDir }, io) => {
    const context = await open(values, io, localDir)
    // What fails is worded by cli/messages.ts, like every command's failure.
    try {
      await work(context, values, json, io)
    } finally {
      context.close()
    }
  }

const memberRow = (m: MemberView) => [
  m.memberId,
  m.email,
  m.role,
  m.status,
  m.createdAt,
  m.invitedBy,
]

export const MEMBER_COMMANDS: Record<string, MemberCommand> = {
  'member invite': {
    usage: 'member invite --issuer <issuerId> --email <address> --role owner|admin|viewer',
    summary:
      'Invite a person: an account and an e-mail with a temporary password (7 days); an address that already has an account is added without one.',
    options: ['issuer', 'email', 'role'],
    run: command(async ({ members, where }, values, json, io) => {
      const issuerId = await requireIssuer(members, values)
      const { member, emailed } = await members.invite(
        issuerId,
        { email: str(values, 'email'), role: str(values, 'role') },
        { actor: OPERATOR },
      )
      if (json) {
        io.out(JSON.stringify({ issuerId, ...member, invitationSent: emailed === 'invitation' }))
        return
      }
      io.out(
        emailed === 'invitation'
          ? `Invited ${member.email} to ${issuerId} as ${member.role} (member ${member.memberId}): an invitation e-mail with a temporary password, valid 7 days, is on its way.`
          : `Added ${member.email} to ${issuerId} as ${member.role} (member ${member.memberId}): they already have a password of their own, so none was sent${emailed === 'added' ? '; an e-mail tells them who added them' : ''}.`,
      )
      if (emailed !== 'none' && where.mailPage) io.err(`Locally the e-mail is at ${where.mailPage}`)
    }),
  },
  'member list': {
    usage: 'member list --issuer <issuerId>',
    summary: "List an issuer's members and pending invitations, oldest first.",
    options: ['issuer'],
    run: command(async ({ members }, values, json, io) => {
      const issuerId = await requireIssuer(members, values)
      const list = await members.list(issuerId)
      io.out(
        json
          ? JSON.stringify(list)
          : table(
              ['MEMBER', 'EMAIL', 'ROLE', 'STATUS', 'CREATED', 'INVITED BY'],
              list.map(memberRow),
            ),
      )
    }),
  },
  'member role': {
    usage:
      'member role --issuer <issuerId> (--member <memberId> | --email <address>) --role owner|admin|viewer',
    summary: "Change a member's role; the issuer's last owner stays an owner.",
    options: ['issuer', 'member', 'email', 'role'],
    run: command(async ({ members }, values, json, io) => {
      const issuerId = await requireIssuer(members, values)
      const memberId = await requireMemberId(members, issuerId, values)
      const { member, changed } = await members.changeRole(
        issuerId,
        memberId,
        { role: str(values, 'role') },
        { actor: OPERATOR },
      )
      io.out(
        json
          ? JSON.stringify(member)
          : `${member.email} ${changed ? 'is now' : 'already is'} ${member.role} in ${issuerId}`,
      )
    }),
  },
  'member remove': {
    usage: 'member remove --issuer <issuerId> (--member <memberId> | --email <address>)',
    summary:
      'Remove a member or withdraw a pending invitation; their next call is refused. The last owner cannot be removed.',
    options: ['issuer', 'member', 'email'],
    run: command(async ({ members }, values, json, io) => {
      const issuerId = await requireIssuer(members, values)
      const memberId = await requireMemberId(members, issuerId, values)
      const removed = await members.remove(issuerId, memberId, { actor: OPERATOR })
      io.out(
        json
          ? JSON.stringify(removed)
          : `Removed ${removed.email} (${removed.role}${removed.status === 'invited' ? ', invitation pending' : ''}) from ${issuerId}`,
      )
    }),
  },
  'member resend': {
    usage: 'member resend --issuer <issuerId> (--member <memberId> | --email <address>)',
    summary:
      'Send a pending invitation again, with a new temporary password (also after the 7 days ran out).',
    options: ['issuer', 'member', 'email'],
    run: command(async ({ members, where }, values, json, io) => {
      const issuerId = await requireIssuer(members, values)
      const memberId = await requireMemberId(members, issuerId, values)
      const member = await members.resend(issuerId, memberId, { actor: OPERATOR })
      io.out(
        json
          ? JSON.stringify(member)
          : `Sent ${member.email} a new invitation to ${issuerId}, with a new temporary password valid 7 days.`,
      )
      if (where.mailPage) io.err(`Locally the e-mail is at ${where.mailPage}`)
    }),
  },
}
