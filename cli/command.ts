/**
 * The shape of every admin CLI command (admin-cli.ts, grant-commands.ts, member-commands.ts): one
 * declaration, so a command written in any of them is registered and run the same way.
 */

export type Io = { out: (text: string) => void; err: (text: string) => void }

export type Values = Record<string, string | boolean | undefined>

/** What a command is run with: its id, its options, and where `npm start` keeps its records. */
export type CommandArgs<Tools = unknown> = {
  id: string
  /** The second positional argument, for a command that takes one (`key limit <keyId> <n>`). */
  value?: string | undefined
  values: Values
  json: boolean
  localDir?: string | undefined
  /** The grant's life over the target's tables (grant show, grant cancel). */
  grants?: Tools | undefined
}

/** A command over `Admin` (the admin use cases; `unknown` for commands that open their own). */
export type Command<Admin = unknown, Tools = unknown> = {
  usage: string
  summary: string
  options: string[]
  /** Name of the one positional argument, if the command takes one. */
  positional?: string
  /** Name of a second positional argument, after the first. */
  value?: string
  run: (admin: Admin, args: CommandArgs<Tools>, io: Io) => Promise<void>
}
