import type { ChangeOptions } from './changes.store'

export type IssuerRecord = { issuerId: string; name: string; createdAt: string }

/** Issuers: made by the operator, named in the console. */
export interface IssuerStore {
  /** Refuses (StoreUnavailable `clash`) an id that exists already. */
  createIssuer(issuer: IssuerRecord, options?: ChangeOptions): Promise<void>
  listIssuers(): Promise<IssuerRecord[]>
  /** Strongly consistent names of these issuers (absent ones are left out). */
  issuerNames(issuerIds: string[]): Promise<Map<string, string>>
}
