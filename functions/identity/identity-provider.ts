/**
 * The people directory behind sign-in (Amazon Cognito in AWS, the embedded emulator under
 * `npm start`). The management API and the admin CLI invite people through it; who may do what
 * is never asked of it: roles live in the memberships table and are checked on every request.
 */
export interface IdentityProvider {
  /**
   * Invites a person by e-mail: creates their account with a temporary password (valid 7 days)
   * and has the invitation e-mail sent, naming the issuer. A person who already has an account
   * is found instead (`created: false`) and gets no new password.
   */
  invite(input: { email: string; issuerName: string }): Promise<{ sub: string; created: boolean }>
  /**
   * A new temporary password and invitation e-mail for a person who has not yet signed in (also
   * the way back when the 7 days ran out). Refused for a person who has already set a password.
   */
  resendInvitation(input: { email: string; issuerName: string }): Promise<void>
  /** `invited` until the person's first sign-in sets a password; `active` after. */
  status(email: string): Promise<'invited' | 'active' | 'unknown'>
}
