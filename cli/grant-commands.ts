import type { GrantLife } from '../functions/core/grant-life'
import type { GrantRecord } from '../functions/domain/grant'
import { grantExpiresAt } from '../functions/domain/grant-lifecycle'
import { idPattern } from '../functions/domain/ids'
import type { GrantLifeStore } from '../functions/stores/grant-life.store'
import type { Command } from './command'
import { table } from './format'
import { CliError } from './messages'

/**
 * The admin CLI's commands on one grant's life: `grant show` (the grant and its history) and
 * `grant cancel` (the operator as the actor, audited in the grant's issuer), through the same use
 * case as the integrator API and the console (functions/core/grant-life.ts).
 */

/** What these commands run on: the grant's life over the target's tables (cli/main.ts builds it). */
export type GrantTools = {
  store: Pick<GrantLifeStore, 'findGrant'>
  life: Pick<GrantLife, 'cancel'>
}

type GrantCommand = Command<unknown, GrantTools>

const GRANT_ID = idPattern('grant')

const tools = (grants: GrantTools | undefined) => {
  if (grants === undefined) throw new Error('The grant commands need the grant tools (cli/main.ts)')
  return grants
}

/** The grant, or a one-line error: a malformed id and a missing grant are told apart. */
const findGrant = async (grants: GrantTools, id: string) => {
  if (!GRANT_ID.test(id)) throw new CliError(`Grant ${JSON.stringify(id)} is not a valid id.`)
  const grant = await grants.store.findGrant(id)
  if (grant === undefined) throw new CliError(`No grant ${id}.`)
  return grant
}

/** The operator sees everything on the grant but its link tokens' hashes and the request hash. */
const grantJson = (g: GrantRecord) => ({
  id: g.grantId,
  programId: g.programId,
  issuerId: g.issuerId,
  mode: g.mode,
  email: g.recipient.email,
  name: g.recipient.name ?? null,
  amount: g.amount,
  reason: g.reason,
  status: g.status,
  rejectionReason: g.rejectionReason ?? null,
  createdAt: g.createdAt,
  expiresAt: new Date(grantExpiresAt(g)).toISOString(),
  delivery: g.offer?.delivery ?? 'pending',
  sends: g.offer?.sends ?? 0,
  acceptedAt: g.acceptance?.at ?? null,
  history: g.history ?? [],
})

const historyLines = (g: GrantRecord) =>
  table(
    ['AT', 'EVENT', 'WHAT', 'ACTOR', 'DETAIL'],
    (g.history ?? []).map((h) => [
      h.at,
      h.event,
      h.event === 'transition'
        ? `${h.state ?? ''}${h.reason === undefined ? '' : ` (${h.reason})`}`
        : (h.delivery ?? ''),
      h.actor,
      h.detail ?? '',
    ]),
  )

const describe = (g: GrantRecord) => {
  const view = grantJson(g)
  return [
    `id         ${view.id}`,
    `program    ${view.programId} (${view.mode})`,
    `issuer     ${view.issuerId}`,
    `recipient  ${view.email}${view.name === null ? '' : ` (${view.name})`}`,
    `amount     ${view.amount}`,
    `reason     ${view.reason}`,
    `status     ${view.status}${view.rejectionReason === null ? '' : ` (${view.rejectionReason})`}`,
    `created    ${view.createdAt}`,
    `expires    ${view.expiresAt}`,
    `delivery   ${view.delivery} (${view.sends} sent)`,
    '',
    'History (oldest first; created as reserved):',
    historyLines(g),
  ].join('\n')
}

export const GRANT_COMMANDS: Record<string, GrantCommand> = {
  'grant show': {
    usage: 'grant show <grantId>',
    summary: 'Show a grant: its state, offer window, e-mail delivery and history.',
    options: [],
    positional: 'grantId',
    run: async (_admin, { id, json, grants }, io) => {
      const grant = await findGrant(tools(grants), id)
      io.out(json ? JSON.stringify(grantJson(grant)) : describe(grant))
    },
  },
  'grant cancel': {
    usage: 'grant cancel <grantId>',
    summary:
      'Cancel a reserved or offered grant: its shares go back to the pool; audited with the operator as the actor. Safe to run again; an accepted grant cannot be canceled.',
    options: [],
    positional: 'grantId',
    run: async (_admin, { id, json, grants }, io) => {
      const given = tools(grants)
      const before = await findGrant(given, id)
      const after = await given.life.cancel({
        grantId: before.grantId,
        issuerId: before.issuerId,
        actor: { kind: 'operator' },
        audit: {},
      })
      const changed = before.status !== 'canceled'
      if (json) {
        io.out(JSON.stringify({ ...grantJson(after), changed }))
        return
      }
      io.out(
        changed
          ? `Canceled ${after.grantId}: ${after.amount} shares back to ${after.programId}.`
          : `${after.grantId} was already canceled; nothing changed.`,
      )
    },
  },
}
