import type { ProgramAccess } from '../../core/get-program'
import { toProgramResource } from '../program-resource'
import { type IntegratorRequests, integratorRoute } from './integrator-route'

/** What the route needs: the program's access check, built by the composition root. */
export type GetProgramRouteDeps = { readonly programAccess: ProgramAccess } & IntegratorRequests

/** `GET /programs/{programId}` with `x-api-key`: the program, its pool and what is left of it. */
export const makeGetProgramHandler = ({ programAccess, requests }: GetProgramRouteDeps) =>
  integratorRoute(async (request) => (await programAccess(request)).program, toProgramResource, {
    requests,
  })
