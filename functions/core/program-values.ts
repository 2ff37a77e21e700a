import { WriteConflictError } from '../domain/admin-errors'
import { auditEntry } from '../domain/audit-entry'
import { IssuerProgramNotFound } from '../domain/errors'
import { newId } from '../domain/ids'
import { type Actor, actorLabel } from '../domain/people'
import {
  becomesCurrent,
  checkAsOfNotFuture,
  encodeValueCursor,
  type ProgramValueEntry,
  valueOutboxItem,
} from '../domain/program-value'
import type { SetProgramValueRequest } from '../domain/program-value-request.schema'
import { LOST_RACE, optimisticUpdate } from '../runtime/optimistic-update'
import * as RETRY from '../runtime/retry-policies'
import type { ProgramValueStore, ValueHead } from '../stores/program-values.store'
import { orBusy } from './admin-context'

/** A page of the value history: 50 entries by default, at most 100. */
export const VALUES_PAGE = { default: 50, max: 100 } as const

/** A value entry as the use cases answer it: whether it is the program's value now. */
export type ValueView = ProgramValueEntry & { current: boolean }

/**
 * Setting and reading a program's value (issue 32, docs/decisions/share-value.md), for the
 * management routes: one issuer's people (`issuerId`), another issuer's program answering as a
 * missing one. A change writes its history entry, the head's current value (when it is the
 * latest `asOf`), its audit entry and the outbox item of `program.value_changed` together.
 */
export const makeProgramValues = ({
  store,
  clock,
  who,
}: {
  store: ProgramValueStore
  clock: () => number
  who: { actor: Actor; requestId?: string }
}) => {
  const headOf = async (programId: string, issuerId: string): Promise<ValueHead> => {
    const head = await store.getHead(programId)
    if (head === undefined || head.issuerId !== issuerId) throw new IssuerProgramNotFound(programId)
    return head
  }

  return {
    async setValue(input: {
      programId: string
      issuerId: string
      body: SetProgramValueRequest
    }): Promise<ValueView> {
      const now = clock()
      checkAsOfNotFuture(input.body.asOf, now)
      const { programId, issuerId } = input
      const method = input.body.method ?? ''
      const entry: ProgramValueEntry = {
        valueId: newId('value'),
        programId,
        amount: input.body.amount,
        currency: input.body.currency,
        asOf: input.body.asOf,
        setAt: new Date(now).toISOString(),
        setBy: actorLabel(who.actor),
        ...(method === '' ? {} : { method }),
      }
      const change = `Setting the value of program ${programId}`
      let latest = await headOf(programId, issuerId)
      return optimisticUpdate(latest, {
        policy: RETRY.managementRace,
        reread: async () => latest,
        exhausted: () => {
          throw new WriteConflictError(change, RETRY.managementRace.attempts, 0)
        },
        attempt: async (head) => {
          const current = becomesCurrent(entry, head.value)
          const outcome = await orBusy(change, () =>
            store.recordValue({
              head,
              entry,
              current,
              issuerId,
              audit: auditEntry({
                issuerId,
                actor: who.actor,
                action: 'program.value',
                target: { type: 'program', id: programId },
                now,
                requestId: who.requestId,
                details: {
                  valueId: entry.valueId,
                  amount: entry.amount,
                  currency: entry.currency,
                  asOf: entry.asOf,
                  current,
                },
              }),
              outbox: valueOutboxItem(entry, { issuerId, mode: head.mode, current, now }),
            }),
          )
          if (outcome.kind === 'not_found') throw new IssuerProgramNotFound(programId)
          if (outcome.kind === 'done') return { ...entry, current: outcome.current }
          latest = outcome.head
          return LOST_RACE
        },
      })
    },

    /** Newest `asOf` first; `current` marks the head's value. */
    async listValues(input: {
      programId: string
      issuerId: string
      limit: number
      after?: { asOf: string; setAt: string; valueId: string }
    }): Promise<{ items: ValueView[]; nextCursor: string | null }> {
      const head = await headOf(input.programId, input.issuerId)
      const page = await store.listValues({
        programId: input.programId,
        limit: input.limit,
        ...(input.after === undefined ? {} : { after: input.after }),
      })
      return {
        items: page.items.map((entry) => ({
          ...entry,
          current: entry.valueId === head.value?.valueId,
        })),
        nextCursor: page.last === undefined ? null : encodeValueCursor(page.last),
      }
    },
  }
}

export type ProgramValues = ReturnType<typeof makeProgramValues>
