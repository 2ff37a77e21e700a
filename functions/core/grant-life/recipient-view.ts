import type { Mode } from '../../domain/api-key'
import type { GrantRecord } from '../../domain/grant'
import { grantExpiresAt, type RejectionReason } from '../../domain/grant-lifecycle'
import type { ProgramRecord, ProgramTerms } from '../../domain/program'
import { eligibilityFields } from '../../domain/recipient-offer'
import type { GrantLifeStore } from '../../stores/grant-life.store'

/** What a recipient's page shows of one grant: nothing of other addresses, nothing of the issuer's people. */
export type RecipientGrantView = {
  grantId: string
  programId: string
  programName: string
  description?: string
  amount: number
  reason: string
  state: GrantRecord['status']
  rejectionReason?: RejectionReason
  expiresAt: string
  mode: Mode
  /** The fields identifying asks for (the program's rules). */
  fields: { name: true; dateOfBirth: boolean; country: boolean }
  countries?: string[]
  minAge?: number
  terms?: ProgramTerms
  identified: boolean
  acceptedAt?: string
}

export type RecipientView = { email: string; grants: RecipientGrantView[] }

/** Program heads by id, each with its terms text read from its own item (one read for all). */
export const programsWithTerms = async (
  store: Pick<GrantLifeStore, 'findProgramHeads' | 'findTermsTexts'>,
  programIds: readonly string[],
): Promise<Map<string, ProgramRecord>> => {
  const programs = new Map(
    (await store.findProgramHeads([...new Set(programIds)])).map((p) => [p.programId, p]),
  )
  // A head keeps only `hasText`: the texts shown are read from their own items in one read.
  const withText = [...programs.values()].filter((p) => p.terms?.hasText)
  if (withText.length > 0) {
    const texts = new Map(
      (await store.findTermsTexts(withText.map((p) => p.programId))).map((t) => [t.termsOf, t]),
    )
    for (const program of withText) {
      const found = texts.get(program.programId)
      const { hasText: _, ...terms } = program.terms as ProgramTerms
      programs.set(program.programId, {
        ...program,
        terms: found?.version === terms.version ? { ...terms, text: found.text } : terms,
      })
    }
  }
  return programs
}

/** The page of `email`: the grants `keep` keeps, each with its program's rules and terms text. */
export const viewOf = async (
  store: GrantLifeStore,
  email: string,
  grants: GrantRecord[],
  keep: (grant: GrantRecord) => boolean,
): Promise<RecipientView> => {
  const shown = grants.filter(keep)
  const programs = await programsWithTerms(
    store,
    shown.map((g) => g.programId),
  )
  return {
    email,
    grants: shown.map((grant) => recipientGrantView(grant, programs.get(grant.programId))),
  }
}

export const recipientGrantView = (
  grant: GrantRecord,
  program: ProgramRecord | undefined,
): RecipientGrantView => {
  const rules = program ?? {}
  return {
    grantId: grant.grantId,
    programId: grant.programId,
    programName: program?.name ?? grant.programId,
    ...(program?.description === undefined ? {} : { description: program.description }),
    amount: grant.amount,
    reason: grant.reason,
    state: grant.status,
    ...(grant.rejectionReason === undefined ? {} : { rejectionReason: grant.rejectionReason }),
    expiresAt: new Date(grantExpiresAt(grant)).toISOString(),
    mode: grant.mode,
    fields: eligibilityFields(rules),
    ...(program?.countries === undefined ? {} : { countries: program.countries }),
    ...(program?.minAge === undefined ? {} : { minAge: program.minAge }),
    ...(program?.terms === undefined
      ? {}
      : {
          terms: {
            version: program.terms.version,
            ...(program.terms.text === undefined ? {} : { text: program.terms.text }),
            ...(program.terms.url === undefined ? {} : { url: program.terms.url }),
          },
        }),
    identified: grant.identity !== undefined,
    ...(grant.acceptance === undefined ? {} : { acceptedAt: grant.acceptance.at }),
  }
}
