// zod/mini, as the other bodies (cold start matters on every function).
import * as z from 'zod/mini'
import { REJECTION_REASONS } from './grant-lifecycle'
import { TEST_MOVE_TARGETS } from './recipient-offer'

/** The body is a few dozen bytes; anything near this is not one. */
export const TEST_TRANSITION_BODY_MAX_BYTES = 1024

const oneOf = (field: string, values: readonly string[]) => (issue: { input?: unknown }) =>
  issue.input === undefined
    ? `${field} is required`
    : `${field} must be one of ${values.join(', ')}`

/**
 * `POST /programs/{programId}/grants/{grantId}/test-transition` (TEST only): where to move the
 * grant, and for `rejected` why (default `declined`); a reason with another target is refused.
 */
export const TestTransitionBody = z
  .strictObject(
    {
      to: z.enum(TEST_MOVE_TARGETS, { error: oneOf('to', TEST_MOVE_TARGETS) }),
      reason: z.optional(z.enum(REJECTION_REASONS, { error: oneOf('reason', REJECTION_REASONS) })),
    },
    {
      error: (issue) =>
        issue.code === 'invalid_type' ? 'The body must be a JSON object' : undefined,
    },
  )
  .check(
    z.refine((body) => body.reason === undefined || body.to === 'rejected', {
      error: 'reason is only for to: rejected',
      path: ['reason'],
    }),
  )

export type TestTransition = z.infer<typeof TestTransitionBody>
