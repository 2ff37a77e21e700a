import type { programValueResource } from '../../functions/http/routes/manage/program-values.route'
import { request } from './api'

/**
 * The value routes of a program (issue 32), for the program page's value panel
 * (pages/program-value.tsx), on the management API's one request function (api.ts): its token,
 * its refresh on 401 and its errors. Loaded with the program page only.
 */

/** An entry of the value history, the server's own shape (type-only import). */
export type ProgramValue = ReturnType<typeof programValueResource>
export type ProgramValueBody = {
  amount: string
  currency: string
  asOf: string
  method: string | null
}
export type ProgramValuePage = {
  object: 'list'
  data: ProgramValue[]
  nextCursor: string | null
}

const valuesPath = (issuerId: string, programId: string) =>
  `/manage/issuers/${encodeURIComponent(issuerId)}/programs/${encodeURIComponent(programId)}/values`

export const listProgramValues = async (
  issuerId: string,
  programId: string,
  cursor?: string,
): Promise<ProgramValuePage> => {
  const page = cursor === undefined ? '' : `?${new URLSearchParams({ cursor })}`
  return (await (
    await request('GET', `${valuesPath(issuerId, programId)}${page}`)
  ).json()) as ProgramValuePage
}

export const setProgramValue = async (
  issuerId: string,
  programId: string,
  body: ProgramValueBody,
): Promise<ProgramValue> =>
  (await (await request('POST', valuesPath(issuerId, programId), { body })).json()) as ProgramValue
