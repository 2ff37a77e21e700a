import type { APIGatewayProxyEventV2WithJWTAuthorizer } from 'aws-lambda'
import type { makeGrantTokens } from '../../../core/grant-tokens'
import { IssuerProgramNotFound, ProgramNotFound } from '../../../domain/errors'
import { LIMITS } from '../../../domain/grant-request.schema'
import { managedGrantLocation, toManagedGrant } from '../../grant-view'
import { json } from '../../http-handler'
import { type ManageDeps, manageHandler } from '../../manage-handler'
import type { JsonEvent } from '../../middleware'
import { checkProgramId, NO_STORE } from '../../program-of-issuer'

type Event = JsonEvent & Pick<APIGatewayProxyEventV2WithJWTAuthorizer, 'requestContext'>

/** The grant API's use case, built by the composition root (wiring/manage-grants.deps.ts). */
export type SendGrantDeps = ManageDeps & {
  readonly grantTokens: ReturnType<typeof makeGrantTokens>
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/grants` (admin): one grant, sent by a
 * member. The grant API's use case, rules and transaction (functions/grant-tokens), with the
 * member's issuer instead of an API key, the audit entry in the same transaction, and the sender
 * recorded on the grant. The optional Idempotency-Key is scoped to issuer and mode, as the API's:
 * a retry replays the first answer (`Idempotent-Replayed: true`) and writes nothing. `Location`:
 * the grant's management path, as the grant API's 201 names its own.
 */
export const makeSendGrantHandler = ({ grantTokens, ...deps }: SendGrantDeps) =>
  manageHandler<Event>(
    'SendGrant',
    deps,
    async ({ event, deadline, requestId, actor, membership }) => {
      if (!actor || !membership) throw new Error('SendGrant needs the member who sends')
      const programId = checkProgramId(event.pathParameters?.programId)
      try {
        const { grant, replayed } = await grantTokens({
          member: {
            issuerId: membership.issuerId,
            sentBy: { sub: actor.sub, email: actor.email },
            audit: { requestId },
          },
          programId,
          idempotencyKey: event.headers['idempotency-key'],
          body: event.body,
          deadline,
        })
        return json(201, toManagedGrant(grant), {
          ...NO_STORE,
          location: managedGrantLocation(grant),
          ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
        })
      } catch (error) {
        // The management API's wording for the same 404: no such program in this issuer.
        if (error instanceof ProgramNotFound) throw new IssuerProgramNotFound(programId)
        throw error
      }
    },
    { jsonBodyMaxBytes: LIMITS.maxBodyBytes },
  )
