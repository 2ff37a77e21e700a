import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import { IssuerProgramNotFound } from '../../../domain/errors'
import { GrantRequestSchema, LIMITS } from '../../../domain/grant-request.schema'
import { renderOfferPreview } from '../../../mail/offer-mail'
import type { OfferPreviewReader } from '../../../stores/offer-preview.store'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import { manageJson } from '../../manage-http'
import type { JsonEvent } from '../../middleware'
import { checkProgramId } from '../../program-of-issuer'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/**
 * Where the preview's link points when the function has no recipient origin set: the link of a
 * preview opens nothing anyway (its token is `preview`).
 */
const PREVIEW_ORIGIN = 'https://offer.example'

/** What the preview reads and where its link points (wiring/manage-mail.deps.ts). */
export type OfferPreviewDeps = ManageDeps & {
  readonly previews: OfferPreviewReader
  /** The recipient pages' origin, when the function has one (config.mail.recipientOrigin). */
  readonly recipientOrigin: string | undefined
  readonly clock: () => number
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/offer-preview` `{ recipient, reason,
 * amount }` (viewer): the offer e-mail a grant with this body would send, rendered by the mail's
 * own renderer (`{ subject, text, html }`), its link a placeholder. Checked with the grant API's
 * schema, so a body the preview takes is one the grant takes. Writes nothing.
 */
export const makeOfferPreviewHandler = ({
  previews,
  recipientOrigin,
  clock,
  ...deps
}: OfferPreviewDeps) => {
  const origin = recipientOrigin ?? PREVIEW_ORIGIN
  return manageHandler<Event>(
    'OfferPreview',
    deps,
    async ({ event, deadline, membership }) => {
      const programId = checkProgramId(event.pathParameters?.programId)
      const body = GrantRequestSchema.parse(event.body)
      const { program, issuerName } = await previews.sources(
        { programId, issuerId: membership?.issuerId ?? '' },
        { signal: deadline.signal },
      )
      if (program === undefined || program.issuerId !== membership?.issuerId) {
        throw new IssuerProgramNotFound(programId)
      }
      const mail = renderOfferPreview({
        origin,
        mode: program.mode,
        recipient: {
          email: body.recipient.email,
          ...(body.recipient.name ? { name: body.recipient.name } : {}),
        },
        issuerName,
        program: {
          name: program.name,
          description: program.description,
          offerDays: program.offerDays,
        },
        amount: body.amount,
        reason: body.reason,
        now: clock(),
      })
      return manageJson(200, { subject: mail.subject, text: mail.text, html: mail.html })
    },
    { jsonBodyMaxBytes: LIMITS.maxBodyBytes },
  )
}
