import { type ProgramValues, VALUES_PAGE, type ValueView } from '../../../core/program-values'
import { readPageQuery } from '../../../domain/page-query'
import type { Actor } from '../../../domain/people'
import { decodeValueCursor } from '../../../domain/program-value'
import { SetProgramValueSchema } from '../../../domain/program-value-request.schema'
import * as manage from '../../manage-handler'
import { manageJson } from '../../manage-http'
import { checkProgramId } from '../../program-of-issuer'

/** The value routes' deps (wiring/program-values.deps.ts): the value use cases of one request. */
export type ProgramValuesRouteDeps = manage.ManageDeps & {
  readonly valuesFor: (
    who: { actor: Actor; requestId: string },
    signal: AbortSignal,
  ) => ProgramValues
}

/** The body is four short fields: 4 KB is plenty. */
const VALUE_BODY_MAX_BYTES = 4 * 1024

/** An entry of a program's value history as the management API shows it. */
export const programValueResource = (value: ValueView) => ({
  object: 'program_value' as const,
  id: value.valueId,
  programId: value.programId,
  amount: value.amount,
  currency: value.currency,
  asOf: value.asOf,
  method: value.method ?? null,
  setAt: value.setAt,
  setBy: value.setBy,
  current: value.current,
})

/** The request's member, issuer and path program, and the use cases for them. */
const contextOf = <E extends manage.ManageEvent>(
  request: manage.ManageRequest<E>,
  deps: ProgramValuesRouteDeps,
) => {
  const programId = checkProgramId(request.event.pathParameters?.programId)
  if (!request.actor || !request.membership) throw new Error('A value route needs its member')
  const values = deps.valuesFor(
    { actor: request.actor, requestId: request.requestId },
    request.deadline.signal,
  )
  return { programId, issuerId: request.membership.issuerId, values }
}

/**
 * `POST /manage/issuers/{issuerId}/programs/{programId}/values` (owner, admin)
 * `{ amount: "12.50", currency: "EUR", asOf: "2026-11-01", method?: "..." | null }`: a new entry
 * of the program's value history, 201 with it; `current` says whether it is the program's value
 * now (an entry dated before the current one's `asOf` is kept in the history only). Audited
 * `program.value`, and `program.value_changed` goes to webhook subscribers. A wrong field is
 * `400 validation_failed` naming it, and writes nothing.
 */
export const makeSetProgramValueHandler = (deps: ProgramValuesRouteDeps) =>
  manage.manageHandler<manage.ManageBodyEvent>(
    'SetProgramValue',
    deps,
    async (request) => {
      const { programId, issuerId, values } = contextOf(request, deps)
      const body = SetProgramValueSchema.parse(request.event.body)
      const value = await values.setValue({ programId, issuerId, body })
      return manageJson(201, programValueResource(value))
    },
    { jsonBodyMaxBytes: VALUE_BODY_MAX_BYTES },
  )

/**
 * `GET /manage/issuers/{issuerId}/programs/{programId}/values?cursor=&limit=` (viewer): the
 * program's value history, latest `asOf` first, 50 a page by default (up to 100).
 */
export const makeListProgramValuesHandler = (deps: ProgramValuesRouteDeps) =>
  manage.manageHandler<manage.SignedInEvent>('ListProgramValues', deps, async (request) => {
    const { programId, issuerId, values } = contextOf(request, deps)
    const { limit, cursor } = readPageQuery(request.event.queryStringParameters, {
      page: VALUES_PAGE,
      decode: decodeValueCursor,
    }).done()
    const page = await values.listValues({
      programId,
      issuerId,
      limit,
      ...(cursor === undefined ? {} : { after: cursor }),
    })
    return manageJson(200, {
      object: 'list',
      data: page.items.map(programValueResource),
      nextCursor: page.nextCursor,
    })
  })
