import type { Mode } from './api-key'
import { csvLine } from './csv'
import type { GrantRecord } from './grant'
import { grantExpiresAt, type RejectionReason } from './grant-lifecycle'
import type { ProgramRecord } from './program'
import { isOpen } from './recipient-offer'
import { valueOfShares } from './share-value'

/**
 * The recipient's holdings (issue 32, docs/decisions/holdings-sign-in.md): every grant addressed
 * to one e-mail in one mode, grouped by issuer and program, with what the accepted shares are
 * worth at the program's current value; and the statement (CSV) of the same. Pure: the use case
 * (core/holdings.ts) reads, this shapes.
 */

/** Whose holdings a sign-in opens: an address in a mode; TEST: one issuer's grants only. */
export type Holder = { email: string; mode: Mode; issuerId?: string | undefined }

/** A sign-in link lives 15 minutes and is used once; a session ends after 30 idle minutes. */
export const HOLDINGS_LINK_MINUTES = 15
export const HOLDINGS_IDLE_MINUTES = 30

export type HoldingsGrant<Offer> = {
  grantId: string
  status: GrantRecord['status']
  amount: number
  reason: string
  createdAt: string
  expiresAt: string
  rejectionReason: RejectionReason | null
  acceptance: { termsVersion: number; at: string } | null
  /** An open grant's offer, as the offer page shows it (to identify, accept, decline); else null. */
  offer: Offer | null
}

export type HoldingsProgram<Offer> = {
  programId: string
  name: string
  description: string | null
  tokenValue: string | null
  tokenValueCurrency: string | null
  tokenValueCalculatedDate: string | null
  accepted: number
  acceptedValue: string | null
  pending: number
  grants: HoldingsGrant<Offer>[]
}

export type Holdings<Offer> = {
  object: 'holdings'
  email: string
  mode: Mode
  issuers: { issuerId: string; name: string; programs: HoldingsProgram<Offer>[] }[]
}

const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name, 'en') || 0

/** Whether a grant can still be acted on now (identify, accept, decline). */
export const isActionable = (grant: GrantRecord, now: number) =>
  isOpen(grant.status) && now < grantExpiresAt(grant)

/**
 * The holdings of `holder` from their grants (any order), the heads of those grants' programs,
 * the issuers' names, and the offer view of each actionable grant (`offerOf`).
 */
export const holdingsOf = <Offer>(input: {
  holder: Holder
  grants: readonly GrantRecord[]
  programs: ReadonlyMap<string, ProgramRecord>
  issuerNames: ReadonlyMap<string, string | undefined>
  now: number
  offerOf: (grant: GrantRecord) => Offer
}): Holdings<Offer> => {
  const issuers = new Map<string, Map<string, GrantRecord[]>>()
  for (const grant of input.grants) {
    const programs = issuers.get(grant.issuerId) ?? new Map<string, GrantRecord[]>()
    issuers.set(grant.issuerId, programs)
    programs.set(grant.programId, [...(programs.get(grant.programId) ?? []), grant])
  }
  return {
    object: 'holdings',
    email: input.holder.email,
    mode: input.holder.mode,
    issuers: [...issuers]
      .map(([issuerId, programs]) => ({
        issuerId,
        name: input.issuerNames.get(issuerId) ?? issuerId,
        programs: [...programs]
          .map(([programId, grants]) =>
            programHoldings(input.programs.get(programId), programId, grants, input),
          )
          .sort(byName),
      }))
      .sort(byName),
  }
}

const programHoldings = <Offer>(
  program: ProgramRecord | undefined,
  programId: string,
  grants: readonly GrantRecord[],
  input: { now: number; offerOf: (grant: GrantRecord) => Offer },
): HoldingsProgram<Offer> => {
  const sum = (keep: (g: GrantRecord) => boolean) =>
    grants.filter(keep).reduce((total, g) => total + g.amount, 0)
  const accepted = sum((g) => g.status === 'accepted')
  const value = program?.value
  return {
    programId,
    name: program?.name ?? programId,
    description: program?.description ?? null,
    tokenValue: value?.amount ?? null,
    tokenValueCurrency: value?.currency ?? null,
    tokenValueCalculatedDate: value?.asOf ?? null,
    accepted,
    acceptedValue: value === undefined ? null : valueOfShares(accepted, value.amount),
    pending: sum((g) => isOpen(g.status)),
    grants: [...grants]
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.grantId.localeCompare(a.grantId))
      .map((grant) => ({
        grantId: grant.grantId,
        status: grant.status,
        amount: grant.amount,
        reason: grant.reason,
        createdAt: grant.createdAt,
        expiresAt: new Date(grantExpiresAt(grant)).toISOString(),
        rejectionReason: grant.rejectionReason ?? null,
        acceptance:
          grant.acceptance === undefined
            ? null
            : { termsVersion: grant.acceptance.termsVersion, at: grant.acceptance.at },
        offer: isActionable(grant, input.now) ? input.offerOf(grant) : null,
      })),
  }
}

/** The statement's columns, one row per grant (holdingsCsv). */
export const HOLDINGS_CSV_COLUMNS = [
  'issuer',
  'program',
  'grant_id',
  'status',
  'amount',
  'reason',
  'created_at',
  'accepted_at',
  'terms_version',
  'token_value',
  'token_value_currency',
  'token_value_as_of',
  'accepted_value',
] as const

/**
 * The statement: the holdings as CSV (domain/csv.ts: every cell quoted, formula-safe), in the
 * page's order; the value of the shares only on accepted grants, at the program's current value.
 */
export const holdingsCsv = (holdings: Holdings<unknown>): string => {
  let text = csvLine(HOLDINGS_CSV_COLUMNS)
  for (const issuer of holdings.issuers) {
    for (const program of issuer.programs) {
      for (const grant of program.grants) {
        const accepted = grant.status === 'accepted'
        text += csvLine([
          issuer.name,
          program.name,
          grant.grantId,
          grant.status,
          grant.amount,
          grant.reason,
          grant.createdAt,
          grant.acceptance?.at,
          grant.acceptance?.termsVersion,
          program.tokenValue,
          program.tokenValueCurrency,
          program.tokenValueCalculatedDate,
          accepted && program.tokenValue !== null
            ? valueOfShares(grant.amount, program.tokenValue)
            : null,
        ])
      }
    }
  }
  return text
}
