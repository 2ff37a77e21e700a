/**
 * The people directory behind sign-in (Amazon Cognito in AWS, the embedded emulator under
 * `npm start`). The management API and the admin CLI invite people through it; who may do what
 * is never asked of it: roles live in the memberships table and are checked on every request.
 */
export type InvitationInput = {
  email: string
  /** The issuer that invites, named first. */
  issuerName: string
  /**
   * Every other issuer with a pending invitation for this person: a new temporary password
   * replaces the one of every earlier invitation e-mail, so the new e-mail names them all.
   */
  otherIssuerNames?: readonly string[]
}

export interface IdentityProvider {
  /**
   * Invites a person by e-mail: creates their account with a temporary password (valid 7 days)
   * and has the invitation e-mail sent, naming the issuer. A person who already has an account
   * is found instead (`created: false`, no e-mail, no new password), with its status.
   */
  invite(
    input: InvitationInput,
  ): Promise<{ sub: string; created: boolean; status: 'invited' | 'active' }>
  /**
   * A new temporary password and invitation e-mail for a person who has not yet signed in (also
   * the way back when the 7 days ran out). Refused for a person who has already set a password.
   */
  resendInvitation(input: InvitationInput): Promise<void>
  /** `invited` until the person's first sign-in sets a password; `active` after. */
  status(email: string): Promise<'invited' | 'active' | 'unknown'>
}
