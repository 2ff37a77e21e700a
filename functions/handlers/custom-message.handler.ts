import { loadCustomMessageConfig, makeCustomMessageHandler } from '../identity/custom-message'

/**
 * The console's address and the sending account are read once, at cold start; a missing or bad
 * one stops the function at init (Cognito then refuses the invitation with an error the inviter
 * sees) rather than e-mail a broken link.
 */
export const handler = makeCustomMessageHandler(loadCustomMessageConfig(process.env))
