import type { ProgramRecord } from '../domain/program'
import type { CallOptions } from './members.store'

/** What the offer preview renders besides the request's body. */
export type OfferPreviewSources = {
  /** The program's head as written (no counters summed: the preview shows none). */
  program?: ProgramRecord
  /** The issuer's name, when the issuer has one. */
  issuerName?: string
}

/** The offer preview's reads (`POST .../offer-preview`): nothing is written. */
export interface OfferPreviewReader {
  /** The program and the issuer's name, read side by side. */
  sources(
    input: { programId: string; issuerId: string },
    options?: CallOptions,
  ): Promise<OfferPreviewSources>
}
