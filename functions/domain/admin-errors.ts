/**
 * What the admin use cases (functions/core/admin.ts) refuse, as facts: which field broke which
 * rule, which program or key is missing or in the wrong state. No HTTP status and no door's
 * wording: functions/http/problem.ts answers each with its stable `code`, cli/messages.ts words
 * it as a CLI line (flags as flags).
 */
/**
 * Each refusal names its fact (`fact`), so a door can tell them apart without loading these
 * classes (http/problem.ts: the grant function's bundle carries none of them).
 */
export class AdminError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** One input that breaks a rule: the field (`pool`, `expiresIn`) and the rule it breaks. */
export type FieldProblem = { field: string; rule: string }

/** The rule a cursor breaks when it did not come from an earlier page. */
export const CURSOR_RULE = 'must be a cursor from a previous page'

/** Input that breaks the use cases' rules, every field at once. */
export class InvalidInput extends AdminError {
  readonly fact = 'invalid_input' as const
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map((p) => `${p.field} ${p.rule}`).join('; '))
  }
}

export type EntityKind = 'issuer' | 'program' | 'key'

/** A malformed id (the routes check path ids first, so only the CLI meets it). */
export class InvalidId extends AdminError {
  readonly fact = 'invalid_id' as const
  constructor(
    readonly kind: EntityKind,
    readonly id: string,
  ) {
    super(`${kind} ${JSON.stringify(id)} is not a valid id.`)
  }
}

/** No such issuer, program or key, or one of another issuer than the caller's: the same answer. */
export class NotFound extends AdminError {
  readonly fact = 'not_found' as const
  constructor(
    readonly kind: EntityKind,
    readonly id: string,
  ) {
    super(`No ${kind} ${id}.`)
  }
}

/** The program or key is in a state that does not allow the change (closing is final, ...). */
export class StateConflict extends AdminError {
  readonly fact = 'state_conflict' as const
  constructor(
    readonly kind: 'program' | 'key',
    readonly id: string,
    readonly current: string,
    message: string,
  ) {
    super(message)
  }
}

/** "<change> did NOT take effect: ..." for a change that ran out of conflict retries. */
export const conflictMessage = (change: string, attempts: number, elapsedMs: number) =>
  `${change} did NOT take effect: grants in flight kept it busy (DynamoDB transaction conflict, ${attempts} attempts in ${(elapsedMs / 1000).toFixed(1)} s).`

/**
 * A change DynamoDB kept refusing with a transaction conflict (grants in flight held the item)
 * until the store's retries ran out. Nothing was written. `change` names what was asked
 * ("Revoking key key_...").
 */
export class WriteConflictError extends AdminError {
  readonly fact = 'write_conflict' as const
  constructor(
    readonly change: string,
    readonly attempts: number,
    readonly elapsedMs: number,
  ) {
    super(conflictMessage(change, attempts, elapsedMs))
  }
}

/** Every refusal of the admin use cases, told apart by `fact`. */
export type AdminRefusal = InvalidInput | InvalidId | NotFound | StateConflict | WriteConflictError
