// zod/mini, as the grant contract (cold start matters on every function).
import * as z from 'zod/mini'
import { ROLES } from './people'
import { bodyError, emailSchema } from './request-fields.schema'

/** Bodies of the member routes are a few dozen bytes; anything near this is not one. */
export const MEMBER_BODY_MAX_BYTES = 4 * 1024

/**
 * A member id is the person's Cognito `sub`: a lower-case UUID, in AWS and in the emulator alike.
 * Anything else cannot be a member, so it is answered 404 without a database read.
 */
export const MEMBER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Trimmed and lower-cased before anything else, as `recipient.email` of a grant. */
export const MemberEmailSchema = emailSchema('email')

export const RoleSchema = z.enum(ROLES, {
  error: (issue) =>
    issue.input === undefined ? 'role is required' : `role must be one of ${ROLES.join(', ')}`,
})

/** `POST /manage/issuers/{issuerId}/members`. Unknown fields are refused and named. */
export const InviteMemberSchema = z.strictObject(
  { email: MemberEmailSchema, role: RoleSchema },
  { error: bodyError },
)

/** `PATCH /manage/issuers/{issuerId}/members/{memberId}`. */
export const ChangeRoleSchema = z.strictObject({ role: RoleSchema }, { error: bodyError })

export type InviteMemberRequest = z.output<typeof InviteMemberSchema>
export type ChangeRoleRequest = z.output<typeof ChangeRoleSchema>
