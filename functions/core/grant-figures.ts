import { type FigureChange, figureChangeOfWrite } from '../domain/figures'
import type { GrantRecord } from '../domain/grant'
import type { TableChange } from '../stores/stream-records.store'

const GRANT_ID = /^gr_/

/**
 * What a record of the grants stream adds to its program's figures (domain/figures.ts), or
 * undefined when it is not a grant's INSERT or MODIFY (a REMOVE, a link token, a batch item).
 */
export const figureChangeOf = (change: TableChange): FigureChange | undefined => {
  const grantId = change.keys?.grantId
  const after = change.newImage as GrantRecord | undefined
  const sequenceNumber = change.sequenceNumber
  if (typeof grantId !== 'string' || !GRANT_ID.test(grantId)) return undefined
  if (after === undefined || sequenceNumber === undefined) return undefined
  const inserted = change.eventName === 'INSERT'
  const before = inserted ? undefined : (change.oldImage as GrantRecord | undefined)
  if (!inserted && (change.eventName !== 'MODIFY' || before === undefined)) return undefined
  return figureChangeOfWrite({
    sequenceNumber,
    before,
    after,
    streamSeconds: change.approximateCreationDateTime,
  })
}
