import { parseArgs } from 'node:util'
import type { Admin } from '../functions/core/admin'
import type { GrantRecord } from '../functions/domain/grant'
import type { ProgramRecord } from '../functions/domain/program'
import type { CommandArgs as BaseArgs, Command as BaseCommand, Io, Values } from './command'
import { csv, table } from './format'
import { GRANT_COMMANDS, type GrantTools } from './grant-commands'
import { KEY_COMMANDS } from './key-commands'
import { MEMBER_COMMANDS, MEMBER_OPTIONS } from './member-commands'
import { CliError } from './messages'

export type { Io } from './command'
export type CommandArgs = BaseArgs<GrantTools>
type Command = BaseCommand<Admin, GrantTools>

const str = (values: Values, key: string) => values[key] as string | undefined

const GLOBAL_HELP = `Global options:
  --json               machine-readable output
  --stack <name>       work on a deployed stack's tables (read from its CloudFormation outputs)
  --region <region>    region of --stack (default: your AWS configuration)
  --help               help for a command
Without --stack, commands use the local database of \`npm start\` in this checkout.`

const programRow = (p: ProgramRecord) => [
  p.programId,
  p.issuerId,
  p.mode,
  p.status,
  String(p.issued),
  p.pool === undefined ? 'unlimited' : String(p.pool),
  p.name,
]
const GRANT_COLUMNS = ['id', 'createdAt', 'email', 'name', 'amount', 'reason', 'status']
/** As the grant API's resource has it (grant-resource.ts): amount a number, no name when none. */
const grantJson = (g: GrantRecord) => ({
  id: g.grantId,
  createdAt: g.createdAt,
  email: g.recipient.email,
  ...(g.recipient.name === undefined ? {} : { name: g.recipient.name }),
  amount: g.amount,
  reason: g.reason,
  status: g.status,
})
const grantRow = (g: GrantRecord) => [
  g.grantId,
  g.createdAt,
  g.recipient.email,
  g.recipient.name ?? '',
  String(g.amount),
  g.reason,
  g.status,
]

const COMMANDS: Record<string, Command> = {
  'issuer create': {
    usage: 'issuer create --name <name>',
    summary: 'Create an issuer (a company that runs programs).',
    options: ['name'],
    run: async (admin, { values, json }, io) => {
      const issuer = await admin.createIssuer({ name: str(values, 'name') })
      io.out(json ? JSON.stringify(issuer) : `Created issuer ${issuer.issuerId} (${issuer.name})`)
    },
  },
  'issuer list': {
    usage: 'issuer list',
    summary: 'List issuers.',
    options: [],
    run: async (admin, { json }, io) => {
      const issuers = await admin.listIssuers()
      io.out(
        json
          ? JSON.stringify(issuers)
          : table(
              ['ID', 'NAME', 'CREATED'],
              issuers.map((i) => [i.issuerId, i.name, i.createdAt]),
            ),
      )
    },
  },
  'program create': {
    usage: 'program create --issuer <issuerId> --mode TEST|LIVE --name <name> [--pool N]',
    summary: 'Create a program. Its mode never changes; without --pool it has no limit.',
    options: ['issuer', 'mode', 'name', 'pool'],
    run: async (admin, { values, json }, io) => {
      const p = await admin.createProgram({
        issuer: str(values, 'issuer'),
        mode: str(values, 'mode'),
        name: str(values, 'name'),
        pool: str(values, 'pool'),
      })
      io.out(
        json
          ? JSON.stringify(p)
          : `Created ${p.mode} program ${p.programId} "${p.name}" for ${p.issuerId}, pool ${p.pool ?? 'unlimited'}`,
      )
    },
  },
  'program list': {
    usage: 'program list [--issuer <issuerId>] [--mode TEST|LIVE]',
    summary: 'List programs.',
    options: ['issuer', 'mode'],
    run: async (admin, { values, json }, io) => {
      const programs = await admin.listPrograms({
        issuer: str(values, 'issuer'),
        mode: str(values, 'mode'),
      })
      io.out(
        json
          ? JSON.stringify(programs)
          : table(
              ['ID', 'ISSUER', 'MODE', 'STATUS', 'ISSUED', 'POOL', 'NAME'],
              programs.map(programRow),
            ),
      )
    },
  },
  'program show': {
    usage: 'program show <programId>',
    summary: 'Show a program: status, issued, pool and what remains of it.',
    options: [],
    positional: 'programId',
    run: async (admin, { id, json }, io) => {
      const p = await admin.showProgram(id)
      io.out(
        json
          ? JSON.stringify(p)
          : [
              `id         ${p.programId}`,
              `issuer     ${p.issuerId}`,
              `mode       ${p.mode}`,
              `name       ${p.name}`,
              `status     ${p.status}`,
              `issued     ${p.issued}`,
              `pool       ${p.pool ?? 'unlimited'}`,
              `remaining  ${p.remaining ?? 'unlimited'}`,
              `created    ${p.createdAt}`,
            ].join('\n'),
      )
    },
  },
  ...Object.fromEntries(
    (['pause', 'resume', 'close'] as const).map((action) => [
      `program ${action}`,
      {
        usage: `program ${action} <programId>`,
        summary: {
          pause: 'Pause a program: grants are refused (409 program_inactive) until it is resumed.',
          resume: 'Resume a paused program.',
          close: 'Close a program for good: grants are refused from now on.',
        }[action],
        options: [],
        positional: 'programId',
        run: async (admin: Admin, { id, json }: { id: string; json: boolean }, io: Io) => {
          const p = await admin.changeProgramStatus(id, action)
          io.out(json ? JSON.stringify(p) : `Program ${p.programId} is now ${p.status}`)
        },
      } satisfies Command,
    ]),
  ),
  ...KEY_COMMANDS,
  'grant list': {
    usage:
      'grant list --program <programId> [--recipient <email>] [--limit N] [--cursor C] [--format table|json|csv]',
    summary: "List a program's grants, newest first, a page at a time (default 50).",
    options: ['program', 'recipient', 'limit', 'cursor', 'format'],
    run: async (admin, { values, json }, io) => {
      const format = json ? 'json' : (str(values, 'format') ?? 'table')
      if (!['table', 'json', 'csv'].includes(format)) {
        throw new CliError(`--format must be table, json or csv, got ${JSON.stringify(format)}.`)
      }
      const page = await admin.listGrants({
        program: str(values, 'program'),
        recipient: str(values, 'recipient'),
        limit: str(values, 'limit'),
        cursor: str(values, 'cursor'),
      })
      if (format === 'json') {
        io.out(
          JSON.stringify({
            grants: page.items.map(grantJson),
            nextCursor: page.nextCursor ?? null,
          }),
        )
        return
      }
      const headers =
        format === 'csv'
          ? GRANT_COLUMNS
          : GRANT_COLUMNS.map((c) => (c === 'createdAt' ? 'CREATED' : c.toUpperCase()))
      io.out(
        format === 'csv'
          ? csv(headers, page.items.map(grantRow))
          : table(headers, page.items.map(grantRow)),
      )
      if (page.nextCursor) io.err(`More grants: add --cursor ${page.nextCursor}`)
    },
  },
  'grant backfill-slots': {
    usage: 'grant backfill-slots',
    summary:
      'Give the grants made before the byProgramSlot index their slot in it: the upgrade step between the two deploys (README). Safe to run again.',
    options: [],
    run: async (admin, { json }, io) => {
      const done = await admin.backfillGrantSlots()
      io.out(
        json
          ? JSON.stringify(done)
          : `Updated ${done.updated} grants with their listing slot (${done.alreadySet} had one by then; ${done.scanned} items scanned).`,
      )
    },
  },
  ...GRANT_COMMANDS,
  ...MEMBER_COMMANDS,
}

const ALL_OPTIONS = {
  name: { type: 'string' },
  issuer: { type: 'string' },
  mode: { type: 'string' },
  pool: { type: 'string' },
  'expires-in': { type: 'string' },
  grace: { type: 'string' },
  program: { type: 'string' },
  recipient: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  format: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  stack: { type: 'string' },
  region: { type: 'string' },
  ...MEMBER_OPTIONS,
} as const
const GLOBAL_OPTIONS = ['json', 'help', 'stack', 'region']
const NOUNS = [...new Set(Object.keys(COMMANDS).map((k) => k.split(' ')[0] as string))]

/**
 * `--pool -1` as `--pool=-1`: node's parseArgs takes any value starting with a dash for a
 * forgotten value ("argument is ambiguous"), so a negative number never reached the validator and
 * its range message. A value starting with `--`, or `-` and a letter (an option), is left alone.
 */
const joinDashValues = (argv: string[]): string[] => {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const name = arg.startsWith('--') ? arg.slice(2) : undefined
    const next = argv[i + 1]
    const option = name === undefined ? undefined : ALL_OPTIONS[name as keyof typeof ALL_OPTIONS]
    if (
      option?.type === 'string' &&
      next !== undefined &&
      next.startsWith('-') &&
      !/^--?[a-zA-Z]/.test(next)
    ) {
      out.push(`${arg}=${next}`)
      i++
    } else {
      out.push(arg)
    }
  }
  return out
}

const groupHelp = (noun: string) =>
  [
    `Usage: npm run admin -- ${noun} <verb> [options]`,
    '',
    ...Object.entries(COMMANDS)
      .filter(([k]) => k.startsWith(`${noun} `))
      .map(([, c]) => `  ${c.usage}\n      ${c.summary}`),
    '',
    GLOBAL_HELP,
  ].join('\n')

export const usage = () =>
  [
    'Usage: npm run admin -- <noun> <verb> [options]',
    '',
    ...Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`),
    '',
    GLOBAL_HELP,
  ].join('\n')

export type Parsed =
  | { kind: 'help'; text: string }
  | {
      kind: 'run'
      command: Command
      id: string
      value?: string
      values: Values
      stack?: string
      region?: string
    }

/** Parses argv; throws CliError with a one-line message on any mistake. */
export const parseCommand = (argv: string[]): Parsed => {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof ALL_OPTIONS; allowPositionals: true; strict: true }>
  >
  try {
    parsed = parseArgs({
      args: joinDashValues(argv),
      options: ALL_OPTIONS,
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    throw new CliError(`${(error as Error).message.split('\n')[0]} (see --help)`)
  }
  const { values, positionals } = parsed
  const [noun, verb, ...rest] = positionals
  if (noun === undefined || noun === 'help') return { kind: 'help', text: usage() }
  if (values.help && verb === undefined && NOUNS.includes(noun)) {
    return { kind: 'help', text: groupHelp(noun) }
  }
  const key = `${noun} ${verb ?? ''}`.trim()
  const command = COMMANDS[key]
  if (!command) {
    const verbs = Object.keys(COMMANDS).filter((k) => k.startsWith(`${noun} `))
    throw new CliError(
      verbs.length > 0
        ? `Unknown command "${key}". ${noun} takes: ${verbs.map((v) => v.split(' ')[1]).join(', ')}.`
        : `Unknown command "${key}". Nouns: ${NOUNS.join(', ')} (see --help).`,
    )
  }
  if (values.help) {
    return {
      kind: 'help',
      text: `Usage: npm run admin -- ${command.usage}\n${command.summary}\n\n${GLOBAL_HELP}`,
    }
  }
  const unexpected = Object.keys(values).filter(
    (k) => !command.options.includes(k) && !GLOBAL_OPTIONS.includes(k),
  )
  if (unexpected.length > 0) {
    throw new CliError(
      `"${key}" does not take --${unexpected.join(', --')} (usage: ${command.usage}).`,
    )
  }
  const names = [command.positional, command.value].filter((n) => n !== undefined)
  if (rest.length !== names.length) {
    throw new CliError(
      names.length === 0
        ? `"${key}" takes no argument ${JSON.stringify(rest[0])} (usage: ${command.usage}).`
        : names.length === 1
          ? `"${key}" needs exactly one <${command.positional}> (usage: ${command.usage}).`
          : `"${key}" needs <${names.join('> and <')}> (usage: ${command.usage}).`,
    )
  }
  return {
    kind: 'run',
    command,
    id: rest[0] ?? '',
    ...(rest[1] === undefined ? {} : { value: rest[1] }),
    values,
    ...(values.stack === undefined ? {} : { stack: values.stack }),
    ...(values.region === undefined ? {} : { region: values.region }),
  }
}

/** `localDir`: where `npm start` keeps its records (bin/admin.ts passes VS_LOCAL_DIR). */
export const runParsed = (
  admin: Admin,
  parsed: Extract<Parsed, { kind: 'run' }>,
  io: Io,
  localDir?: string,
  grants?: GrantTools,
) =>
  parsed.command.run(
    admin,
    {
      id: parsed.id,
      value: parsed.value,
      values: parsed.values,
      json: parsed.values.json === true,
      localDir,
      grants,
    },
    io,
  )
