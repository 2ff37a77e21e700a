import type { ProgramValueHead } from '../domain/program-value'
import { valueOfShares } from '../domain/share-value'

/**
 * A program's current value as the reads show it (issue 32), under the names the reference
 * product's client reads: `tokenValue` (the amount per share, a decimal string),
 * `tokenValueCurrency` (ISO 4217) and `tokenValueCalculatedDate` (the "as of" date); all null while
 * no value is set.
 */
export type TokenValueFields = {
  tokenValue: string | null
  tokenValueCurrency: string | null
  tokenValueCalculatedDate: string | null
}

export const tokenValueFields = (value: ProgramValueHead | undefined): TokenValueFields => ({
  tokenValue: value?.amount ?? null,
  tokenValueCurrency: value?.currency ?? null,
  tokenValueCalculatedDate: value?.asOf ?? null,
})

/** What `shares` are worth at the current value, exactly (share-value.ts); null without a value. */
export const worthAt = (shares: number, value: ProgramValueHead | undefined): string | null =>
  value === undefined ? null : valueOfShares(shares, value.amount)
