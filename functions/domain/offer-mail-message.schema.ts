// zod/mini, as the other schemas (the OfferMailer's cold start is short).
import * as z from 'zod/mini'
import { LIMITS } from './grant-limits'
import { readJsonWith } from './validation'

/**
 * The messages on the OfferMail queue (functions/consumers.ts): the stream reader's mail for one
 * grant, and the recipient's "send me a new link" that POST /recipient/links hands over without
 * reading anything (the mailer does the look-up, so the answer's timing tells nothing about the
 * address). A body of any other shape is not ours: the consumer fails it towards the dead letters.
 */
export const GrantMailMessage = z.object({
  kind: z.enum(['offer', 'reminder']),
  grantId: z.string().check(z.regex(/^gr_[0-9a-z]{26}$/)),
  cause: z.enum(['created', 'resend', 'corrected', 'relink', 'reminder']),
  /**
   * The change it stands for (ISO): the grant's createdAt, its resendRequestedAt or remindedAt, the
   * correction's history line. A stream and a queue both deliver at least once: the consumer can
   * skip a message whose change it has already mailed.
   */
  at: z.optional(z.string()),
})

export const LinkRequestMessage = z.object({
  kind: z.literal('link-request'),
  /** Normalised (trimmed, lower case) and checked by the route's body schema. */
  email: z.string().check(z.minLength(3), z.maxLength(LIMITS.maxEmailLength), z.includes('@')),
  /** When it was asked (ISO). */
  at: z.string(),
})

/**
 * The recipient's "send me a sign-in link" for their holdings (POST /recipient/holdings/link),
 * handed over as it is: the mailer counts the attempt and reads the address's grants.
 */
export const HoldingsLinkMessage = z.object({
  kind: z.literal('holdings-link'),
  email: LinkRequestMessage.shape.email,
  at: z.string(),
})

export const OfferMailQueueMessage = z.union([
  GrantMailMessage,
  LinkRequestMessage,
  HoldingsLinkMessage,
])

export type OfferMailMessage = z.infer<typeof GrantMailMessage>
export type LinkRequestMessage = z.infer<typeof LinkRequestMessage>
export type HoldingsLinkMessage = z.infer<typeof HoldingsLinkMessage>
export type OfferMailQueueMessage = z.infer<typeof OfferMailQueueMessage>

/** A body the stream reader or the links route could have written, or undefined. */
export const parseOfferMailQueueMessage = (body: string): OfferMailQueueMessage | undefined => {
  const read = readJsonWith(OfferMailQueueMessage, body)
  return read.ok ? read.value : undefined
}
