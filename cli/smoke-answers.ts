import * as z from 'zod/mini'
import {
  DELIVERY_EVENTS,
  GRANT_STATES,
  REJECTION_REASONS,
} from '../functions/domain/grant-lifecycle'
import { GrantSchema, ProblemSchema, ProgramSchema } from '../lib/openapi'

/**
 * The answers `npm run smoke` reads, as zod schemas: the 201, the program and the problem are the
 * very schemas openapi.json is generated from; the grant's life and the balance, which the
 * document holds as JSON Schema, are written here from the same constants.
 */
export { GrantSchema, ProblemSchema, ProgramSchema }

const HistoryEntrySchema = z.object({
  at: z.iso.datetime(),
  event: z.enum(['transition', 'delivery', 'address']),
  state: z.optional(z.enum(GRANT_STATES)),
  reason: z.optional(z.enum(REJECTION_REASONS)),
  delivery: z.optional(z.enum(DELIVERY_EVENTS)),
  actor: z.string(),
  detail: z.optional(z.string()),
})

/** `GET /programs/{p}/grants/{g}`, a cancel's and a TEST move's answer. */
export const GrantDetailSchema = z.extend(GrantSchema, {
  status: z.enum(GRANT_STATES),
  rejectionReason: z.nullable(z.enum(REJECTION_REASONS)),
  expiresAt: z.iso.datetime(),
  delivery: z.enum(['pending', 'sent', 'test_inbox', 'failed']),
  history: z.array(HistoryEntrySchema),
})

const count = z.int().check(z.nonnegative())

export const BalanceSchema = z.object({
  object: z.literal('balance'),
  type: z.literal('person'),
  programId: z.string(),
  person: z.object({ email: z.string() }),
  tokenAmount: count,
  participationStatus: z.enum([...GRANT_STATES, 'none']),
  accepted: count,
  pending: count,
  grantCount: count,
})

/** The console's config.json (lib/console-site.ts's ConsoleConfig): what the smoke checks of it. */
export const ConsoleConfigSchema = z.object({
  grantApiUrl: z.url(),
  userPoolId: z.string().check(z.minLength(1)),
  userPoolClientId: z.string().check(z.minLength(1)),
  cognitoEndpoint: z.url(),
})

/** Parses `value` with `schema`, or throws one line naming the first field that does not fit. */
export const parseAnswer = <T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T => {
  const result = z.safeParse(schema, value)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const field = issue?.path.length ? issue.path.join('.') : 'the body'
  throw new SmokeFailure(`${what} does not match the contract: ${field}: ${issue?.message}`)
}

/** A check that failed: its message is the step's one line. */
export class SmokeFailure extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SmokeFailure'
  }
}
