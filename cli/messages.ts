import {
  AdminError,
  CURSOR_RULE,
  InvalidId,
  InvalidInput,
  NotFound,
  WriteConflictError,
} from '../functions/domain/admin-errors'
import { DomainError, ValidationFailed } from '../functions/domain/errors'
import { StoreUnavailable } from '../functions/stores/store-errors'

/**
 * The CLI's words, in one place: what the use cases (admin and members) and the stores report,
 * and the CLI's own mistakes (a flag, a target), each as the one line after `error: `.
 */

/** A mistake the CLI itself finds (usage, target, output format): its message is the line. */
export class CliError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** The parsed flags of the command that failed: some answers name them. */
export type CliValues = Record<string, string | boolean | undefined>

/** A use case's field as its flag: `expiresIn` is `--expires-in`. */
const flag = (field: string) => `--${field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`

const ENTITY = { issuer: 'Issuer', program: 'Program', key: 'Key' } as const

const str = (values: CliValues, key: string) => values[key] as string | undefined

/** The member use cases report the API's errors (functions/domain/errors.ts): said the CLI's way. */
const memberMessage = (error: DomainError, values: CliValues): string => {
  if (error instanceof ValidationFailed) {
    return (error.errors ?? []).map((e) => `--${e.message.replace(/\.$/, '')}.`).join(' ')
  }
  const issuer = str(values, 'issuer') ?? ''
  switch (error.code) {
    case 'issuer_not_found':
      return `No issuer ${issuer}.`
    case 'member_not_found':
      return `No member ${str(values, 'member') ?? ''} in ${issuer}.`
    case 'request_conflict':
      return 'The change did NOT take effect: the member was being changed at the same moment. Run the command again.'
    case 'service_unavailable':
      return 'The change did NOT take effect: the database was throttled or did not answer. Run the command again.'
    default:
      return error.detail
  }
}

/**
 * The line after `error: ` for anything a command threw: a field is named as its flag, a change
 * that did not take effect says to run the command again, and an error nobody foresaw shows its
 * name and the first line of its message.
 */
export const cliMessage = (error: unknown, values: CliValues = {}): string => {
  if (error instanceof CliError) return error.message
  if (error instanceof InvalidInput) {
    return error.problems
      .map((p) =>
        p.field === 'cursor' && p.rule === CURSOR_RULE
          ? 'The --cursor value is not one this command printed.'
          : `${flag(p.field)} ${p.rule}.`,
      )
      .join(' ')
  }
  if (error instanceof InvalidId) {
    return `${ENTITY[error.kind]} ${JSON.stringify(error.id)} is not a valid id.`
  }
  if (error instanceof NotFound) return `No ${error.kind} ${error.id}.`
  if (error instanceof WriteConflictError) return `${error.message} Run the command again.`
  if (error instanceof StoreUnavailable) {
    return error.reason === 'conflict' ? `${error.message} Run the command again.` : error.message
  }
  if (error instanceof AdminError) return error.message
  if (error instanceof DomainError) return memberMessage(error, values)
  const e = error as Error
  return `${e?.name}: ${String(e?.message).split('\n')[0]}`
}
